package dbf0.kv.protocol;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dbf0.common.ByteArrayWrapper;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Fuzzes the RESP2 command parser ({@link RespCodec#parse}, answering {@link DecodeResult}):
 * commands encoded as arrays of bulk strings and as inline lines, mutated (bytes, and the decimal
 * lengths replaced by extremes) and random. Small limits, so the over-limit paths are a digit away.
 */
class RespCodecFuzzTest {

    static final int MAX_ARGS = 8;
    static final int MAX_BULK = 64;
    static final int MAX_INLINE = 64;

    /** Numbers that a NUMBER edit writes over a length or count in the text. */
    static final long[] EXTREME_NUMBERS = {
        0,
        1,
        -1,
        -2,
        MAX_ARGS - 1,
        MAX_ARGS,
        MAX_ARGS + 1,
        MAX_BULK - 1,
        MAX_BULK,
        MAX_BULK + 1,
        Integer.MAX_VALUE,
        Integer.MAX_VALUE + 1L,
        Integer.MIN_VALUE,
        99_999_999_999L,
        Long.MAX_VALUE
    };

    // ---------------------------------------------------------------------------------------------
    // Generators

    @Provide
    Arbitrary<List<byte[]>> commands() {
        return Arbitraries.bytes()
                .array(byte[].class)
                .ofMaxSize(MAX_BULK)
                .list()
                .ofMinSize(1)
                .ofMaxSize(MAX_ARGS);
    }

    /** Words of letters and digits, as typed at a prompt (the first word never starts with '*'). */
    @Provide
    Arbitrary<List<String>> inlineCommands() {
        return Arbitraries.strings()
                .withCharRange('a', 'z')
                .withCharRange('A', 'Z')
                .withCharRange('0', '9')
                .ofMinLength(1)
                .ofMaxLength(10)
                .list()
                .ofMinSize(1)
                .ofMaxSize(5);
    }

    /** The way redis-cli sends a command. */
    static byte[] encodeArray(List<byte[]> args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(("*" + args.size() + "\r\n").getBytes(US_ASCII));
        for (byte[] arg : args) {
            out.writeBytes(("$" + arg.length + "\r\n").getBytes(US_ASCII));
            out.writeBytes(arg);
            out.writeBytes(new byte[] {'\r', '\n'});
        }
        return out.toByteArray();
    }

    /** One edit of the text: replace the {@code which}-th decimal number by {@code value}. */
    record NumberEdit(int which, long value) {
        byte[] apply(byte[] text) {
            List<int[]> numbers = new ArrayList<>();
            for (int i = 0; i < text.length; i++) {
                int start = i;
                if (text[i] == '-') {
                    i++;
                }
                int digits = i;
                while (i < text.length && text[i] >= '0' && text[i] <= '9') {
                    i++;
                }
                if (i > digits) {
                    numbers.add(new int[] {start, i});
                }
                i = Math.max(i, start + 1) - 1;
            }
            if (numbers.isEmpty()) {
                return text;
            }
            int[] span = numbers.get(which % numbers.size());
            byte[] replacement = Long.toString(value).getBytes(US_ASCII);
            return FuzzBytes.concat(
                    List.of(
                            Arrays.copyOfRange(text, 0, span[0]),
                            replacement,
                            Arrays.copyOfRange(text, span[1], text.length)));
        }
    }

    @Provide
    Arbitrary<byte[]> streams() {
        Arbitrary<byte[]> arrays = commands().map(RespCodecFuzzTest::encodeArray);
        Arbitrary<byte[]> inline =
                inlineCommands()
                        .map(words -> (String.join(" ", words) + "\r\n").getBytes(US_ASCII));
        Arbitrary<byte[]> valid =
                Arbitraries.oneOf(arrays, arrays, inline)
                        .list()
                        .ofMinSize(1)
                        .ofMaxSize(3)
                        .map(FuzzBytes::concat);
        Arbitrary<NumberEdit> numberEdits =
                Combinators.combine(
                                Arbitraries.integers().between(0, 64),
                                Arbitraries.oneOf(
                                        Arbitraries.of(
                                                Arrays.stream(EXTREME_NUMBERS).boxed().toList()),
                                        Arbitraries.longs()))
                        .as(NumberEdit::new);
        Arbitrary<byte[]> renumbered =
                Combinators.combine(valid, numberEdits.list().ofMinSize(1).ofMaxSize(2))
                        .as(
                                (text, edits) -> {
                                    byte[] edited = text;
                                    for (NumberEdit edit : edits) {
                                        edited = edit.apply(edited);
                                    }
                                    return edited;
                                });
        Arbitrary<byte[]> mutated =
                Combinators.combine(
                                valid,
                                FuzzBytes.mutations('\r', '\n', '*', '$', '-', ' ')
                                        .list()
                                        .ofMinSize(1)
                                        .ofMaxSize(4))
                        .as(FuzzBytes::apply);
        Arbitrary<byte[]> random = Arbitraries.bytes().array(byte[].class).ofMaxSize(80);
        return Arbitraries.oneOf(renumbered, renumbered, mutated, mutated, random);
    }

    // ---------------------------------------------------------------------------------------------
    // Invariant 3: parse(encode(args)) == args; every strict prefix is Incomplete, consuming
    // nothing.

    @Property
    void arrayCommandsRoundTrip(@ForAll("commands") List<byte[]> args) throws ProtocolException {
        byte[] bytes = encodeArray(args);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        DecodeResult<List<byte[]>> parsed = RespCodec.parse(in, MAX_ARGS, MAX_BULK, MAX_INLINE);
        assertThat(parsed).isInstanceOf(DecodeResult.Frame.class);
        assertThat(wrap(((DecodeResult.Frame<List<byte[]>>) parsed).value())).isEqualTo(wrap(args));
        assertThat(in.hasRemaining()).isFalse();
        for (int cut = 0; cut < bytes.length; cut++) {
            ByteBuffer prefix = ByteBuffer.wrap(bytes, 0, cut);
            assertThat(RespCodec.parse(prefix, MAX_ARGS, MAX_BULK, MAX_INLINE))
                    .isInstanceOf(DecodeResult.Incomplete.class);
            assertThat(prefix.position()).isZero();
        }
    }

    @Property
    void inlineCommandsRoundTrip(@ForAll("inlineCommands") List<String> words, @ForAll boolean crlf)
            throws ProtocolException {
        ByteBuffer in =
                ByteBuffer.wrap(
                        (String.join("  \t", words) + (crlf ? "\r\n" : "\n")).getBytes(US_ASCII));
        DecodeResult<List<byte[]>> parsed = RespCodec.parse(in, MAX_ARGS, MAX_BULK, MAX_INLINE);
        assertThat(
                        ((DecodeResult.Frame<List<byte[]>>) parsed)
                                .value().stream().map(a -> new String(a, US_ASCII)).toList())
                .isEqualTo(words);
        assertThat(in.hasRemaining()).isFalse();
    }

    static List<ByteArrayWrapper> wrap(List<byte[]> args) {
        return args.stream().map(ByteArrayWrapper::new).toList();
    }

    // ---------------------------------------------------------------------------------------------
    // Invariants 1 and 2 on hostile input, and 4 at the parser.

    @Property
    void mutatedStreamsParseSafely(@ForAll("streams") byte[] input) {
        parseAll(input);
    }

    @Property
    void aPrefixNeverDisagreesWithTheWhole(
            @ForAll("streams") byte[] input, @ForAll @IntRange(max = 1 << 16) int cut) {
        List<Object> whole = parseAll(input);
        List<Object> partial = parseAll(Arrays.copyOf(input, cut % (input.length + 1)));
        List<Object> settled = partial.subList(0, partial.size() - 1);
        assertThat(whole.subList(0, settled.size())).isEqualTo(settled);
        if (partial.getLast() == V2CodecFuzzTest.FATAL) {
            assertThat(whole.get(settled.size()))
                    .as("a prefix was refused, the whole was not")
                    .isEqualTo(V2CodecFuzzTest.FATAL);
        }
    }

    /** Parses commands until Incomplete or ProtocolException, checking each call. */
    static List<Object> parseAll(byte[] input) {
        ByteBuffer in = ByteBuffer.wrap(input);
        List<Object> results = new ArrayList<>();
        while (true) {
            int start = in.position();
            DecodeResult<List<byte[]>> parsed;
            try {
                parsed = RespCodec.parse(in, MAX_ARGS, MAX_BULK, MAX_INLINE);
            } catch (ProtocolException fatal) {
                results.add(V2CodecFuzzTest.FATAL);
                return results;
            } catch (RuntimeException | Error e) {
                FuzzBytes.failUnexpected(e, input);
                return results;
            }
            switch (parsed) {
                case DecodeResult.Incomplete<List<byte[]>>(int needed) -> {
                    assertThat(in.position()).as("Incomplete consumes nothing").isEqualTo(start);
                    // At least what is there (the caller sizes its buffer by it), and at most one
                    // bulk string plus a header line beyond it: never a size taken on a count's
                    // word.
                    assertThat(needed)
                            .isGreaterThanOrEqualTo(in.remaining())
                            .isLessThanOrEqualTo(in.remaining() + MAX_BULK + 64);
                    results.add(V2CodecFuzzTest.INCOMPLETE);
                    return results;
                }
                case DecodeResult.Invalid<List<byte[]>>(String message) ->
                        throw new AssertionError(
                                "a RESP error must be thrown, not answered as Invalid: " + message);
                case DecodeResult.Frame<List<byte[]>>(List<byte[]> args) -> {
                    assertThat(in.position())
                            .as("a command consumes its bytes")
                            .isGreaterThan(start);
                    for (byte[] arg : args) {
                        assertThat(arg.length).isLessThanOrEqualTo(Math.max(MAX_BULK, MAX_INLINE));
                    }
                    results.add(wrap(args));
                }
            }
        }
    }

    // ---------------------------------------------------------------------------------------------
    // What the fuzzers found, kept as examples so that it stays fixed (docs/testing.md lists them).

    @Example
    void aBulkLengthAtTheLimitAllocatesNothingBeforeItsBytes() {
        byte[] announced = "*1\r\n$1048576\r\nab".getBytes(US_ASCII);
        long allocated =
                V2CodecFuzzTest.allocatedBy(
                        () ->
                                RespCodec.parse(
                                        ByteBuffer.wrap(announced),
                                        1024 * 1024,
                                        1024 * 1024,
                                        64 * 1024));
        assertThat(allocated).isLessThan(64 * 1024);
    }

    @Example
    void anAnnouncedArgumentCountAllocatesNothingBeforeTheArguments() {
        byte[] announced = "*1048576\r\n".getBytes(US_ASCII);
        long allocated =
                V2CodecFuzzTest.allocatedBy(
                        () ->
                                RespCodec.parse(
                                        ByteBuffer.wrap(announced),
                                        1024 * 1024,
                                        1024 * 1024,
                                        64 * 1024));
        assertThat(allocated).isLessThan(64 * 1024);
    }

    @Example
    void anInlineLineJustOverTheLimitGetsTheSameVerdictWhateverTheSplit() throws ProtocolException {
        byte[] line = ("A".repeat(MAX_INLINE + 1) + "\n").getBytes(US_ASCII);
        ByteBuffer withoutNewline = ByteBuffer.wrap(line, 0, line.length - 1);
        assertThatThrownBy(() -> RespCodec.parse(withoutNewline, MAX_ARGS, MAX_BULK, MAX_INLINE))
                .isInstanceOf(ProtocolException.class);
        // The same bytes in one read must be refused too: today they parse as one 65-byte argument.
        assertThatThrownBy(
                        () ->
                                RespCodec.parse(
                                        ByteBuffer.wrap(line), MAX_ARGS, MAX_BULK, MAX_INLINE))
                .isInstanceOf(ProtocolException.class);
    }
}
