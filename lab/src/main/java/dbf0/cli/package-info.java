/**
 * Layer 6: the {@code dbf0} command line. One picocli class per command; nothing imports this
 * package.
 */
package dbf0.cli;
