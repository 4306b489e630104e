/**
 * Layer 5, chapter 1: the HashMap race. Writers grow a map through its resizes while checkers read
 * back keys already stored; a key that goes missing is the race, reported in words.
 */
package dbf0.kv.race;
