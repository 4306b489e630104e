/**
 * Layer 2: the data. Chapter 1: {@link dbf0.kv.storage.Store}, the sessions' only door to the data,
 * and {@link dbf0.kv.storage.MapStore} over any {@code java.util.Map} chosen by name in {@link
 * dbf0.kv.storage.MapBackends}. Chapter 5: the striped and read/write-locked maps of the map
 * ladder. Knows nothing of protocols or sockets.
 */
package dbf0.kv.storage;
