/**
 * Layer 5, chapter 8: the nemesis's clients. While {@code scripts/nemesis.py} kills, pauses and
 * cuts off a replicated cluster's nodes, several clients read and write a few keys over RESP,
 * follow MOVED, try again after refusals, and record every operation as a history for {@code dbf0
 * check}: an answer that never came (a timeout, a lost connection, TRYAGAIN) is pending, never
 * failed. At the end one client reads every key once more, so that a lost write shows.
 */
package dbf0.kv.nemesis;
