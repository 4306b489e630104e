/**
 * The command-line options that several dbf0 programs share, as picocli mixins: each option's name,
 * help and check written once. They sit at the programs' level because they check values against
 * storage and server types ({@code MapBackends}, {@code ServerModel}), which {@code
 * dbf0.common.cli} must not know.
 */
package dbf0.kv.bench.options;
