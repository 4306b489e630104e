/**
 * Layer 3, the client side of the socket framework. Chapter 1: a {@link
 * dbf0.base.client.BaseConnector} is one load-generating thread, a {@link
 * dbf0.base.client.BaseClient} the group of them a benchmark runs, and {@link
 * dbf0.base.client.KeyValueClientStats} what they counted.
 */
package dbf0.base.client;
