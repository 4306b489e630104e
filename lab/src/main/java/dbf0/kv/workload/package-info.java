/**
 * Layer 4, what the load generators send. Chapter 1: random keys and values and the tracker of keys
 * set. Chapter 5: skewed key choosers (zipfian, hotspot, latest) and YCSB's mixes.
 */
package dbf0.kv.workload;
