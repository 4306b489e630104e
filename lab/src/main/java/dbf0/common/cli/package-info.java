/**
 * Layer 1: the pieces every picocli command shares: exit codes and the one style of error line
 * ({@link dbf0.common.cli.Cli}), one-line texts for failures and addresses, checks of the paths a
 * command will create or write.
 */
package dbf0.common.cli;
