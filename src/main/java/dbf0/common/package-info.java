/**
 * Layer 1, shared by everything: the byte-array key ({@link dbf0.common.ByteArrayWrapper}, the
 * first class of chapter 1's tour), durations as the command line writes them, and a rate-limited
 * log.
 */
package dbf0.common;
