package dbf0.kv.bench.disk;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/** Sizes on the command line: bytes ({@code 65536}) or with a binary unit ({@code 32MiB, 1g}). */
final class ByteSize implements CommandLine.ITypeConverter<Long> {

    private static final Pattern SIZE =
            Pattern.compile("(\\d+)\\s*(b|k|kb|kib|m|mb|mib|g|gb|gib)?", Pattern.CASE_INSENSITIVE);

    /** Parses {@code text}; every unit is binary (k = KiB = 1024 bytes). */
    static long parse(String text) {
        Matcher m = SIZE.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException(
                    "not a size: '"
                            + text
                            + "' (use bytes like 65536 or a unit: 64KiB, 32MiB, 1GiB)");
        }
        String unit = m.group(2) == null ? "b" : m.group(2).toLowerCase(Locale.ROOT);
        int shift =
                switch (unit.charAt(0)) {
                    case 'k' -> 10;
                    case 'm' -> 20;
                    case 'g' -> 30;
                    default -> 0;
                };
        long value;
        try {
            value = Long.parseLong(m.group(1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("size too large: '" + text + "'");
        }
        if (value > (Long.MAX_VALUE >> shift)) {
            throw new IllegalArgumentException("size too large: '" + text + "'");
        }
        return value << shift;
    }

    @Override
    public Long convert(String value) {
        try {
            return parse(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }
}
