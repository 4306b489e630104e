/** Layer 1: the pieces every picocli command shares (exit codes, short errors, the version). */
package dbf0.common.cli;
