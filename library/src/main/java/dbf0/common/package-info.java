/**
 * Layer 1, shared by everything: the byte-array key ({@link dbf0.common.ByteArrayWrapper}, the
 * first class of chapter 1's tour) and its reusable lookup view ({@link dbf0.common.KeyProbe}),
 * durations as the command line writes them, a rate-limited log, and the thread that runs the
 * flushes owed to it at the end of an event loop's turn ({@link dbf0.common.FlushingThread}).
 */
package dbf0.common;
