/**
 * Layer 1: the byte buffers that both the server and the client side read into and write from.
 * Chapter 2, where connections stay open and requests arrive split anywhere.
 */
package dbf0.base.io;
