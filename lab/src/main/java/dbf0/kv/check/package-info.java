/**
 * Layer 4, chapter 4: histories of operations, their file formats, and the linearizability checker
 * that judges them.
 */
package dbf0.kv.check;
