package dbf0.kv.protocol;

import dbf0.common.ByteArrayWrapper;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Requests and responses for the tests: a fixed list of every kind, and random ones from a seed.
 */
final class V2Samples {

    private V2Samples() {}

    static ByteArrayWrapper bytes(Random random, int length) {
        byte[] array = new byte[length];
        random.nextBytes(array);
        return new ByteArrayWrapper(array);
    }

    static ByteArrayWrapper bytes(String ascii) {
        return new ByteArrayWrapper(ascii.getBytes(StandardCharsets.US_ASCII));
    }

    /** One of every request kind, with small, empty and v1-breaking (over 127-byte) fields. */
    static List<Request> requests() {
        Random random = new Random(7);
        return List.of(
                new Request.Get(bytes("key")),
                new Request.Get(bytes(random, 0)),
                new Request.Set(bytes("key"), bytes("value")),
                new Request.Set(bytes(random, 0), bytes(random, 0)),
                new Request.Set(bytes(random, 200), bytes(random, 300)),
                new Request.Delete(bytes("key")),
                new Request.Ping(),
                new Request.Range(bytes("a"), false, bytes(random, 0), 1),
                new Request.Range(bytes(random, 200), true, bytes("z"), Integer.MAX_VALUE),
                new Request.Batch(List.of()),
                new Request.Batch(
                        List.of(
                                new Request.Set(bytes("a"), bytes("1")),
                                new Request.Get(bytes("a")),
                                new Request.Delete(bytes("a")),
                                new Request.Get(bytes(random, 0)),
                                new Request.Set(bytes(random, 130), bytes(random, 0)))));
    }

    /** One of every response kind, including a non-ASCII error and a batch with an error inside. */
    static List<Response> responses() {
        Random random = new Random(11);
        return List.of(
                new Response.Value(bytes("value")),
                new Response.Value(bytes(random, 0)),
                new Response.Value(bytes(random, 500)),
                new Response.NotFound(),
                new Response.Ok(),
                new Response.Error("key \u2260 cl\u00e9 \uD83D\uDD11"),
                new Response.Error(""),
                new Response.Range(List.of(), false),
                new Response.Range(
                        List.of(
                                new Response.Pair(bytes("k"), bytes(random, 0)),
                                new Response.Pair(bytes(random, 0), bytes(random, 300))),
                        true),
                new Response.Batch(List.of()),
                new Response.Batch(
                        List.of(
                                new Response.Ok(),
                                new Response.Value(bytes("1")),
                                new Response.NotFound(),
                                new Response.Error("op failed"),
                                new Response.Value(bytes(random, 0)))));
    }

    /** A random GET, SET or DELETE, with each field's size drawn from {@code sizes}. */
    static Request randomOperation(Random random, int[] sizes) {
        ByteArrayWrapper key = bytes(random, sizes[random.nextInt(sizes.length)]);
        return switch (random.nextInt(3)) {
            case 0 -> new Request.Get(key);
            case 1 -> new Request.Set(key, bytes(random, sizes[random.nextInt(sizes.length)]));
            default -> new Request.Delete(key);
        };
    }

    static Request.Batch randomBatch(Random random, int maxOps, int[] sizes) {
        return new Request.Batch(randomList(random, maxOps, () -> randomOperation(random, sizes)));
    }

    /** A random VALUE, NOT_FOUND, OK or ERROR (the message mixes ASCII, accents and emoji). */
    static Response randomReply(Random random, int[] sizes) {
        return switch (random.nextInt(4)) {
            case 0 -> new Response.Value(bytes(random, sizes[random.nextInt(sizes.length)]));
            case 1 -> new Response.NotFound();
            case 2 -> new Response.Ok();
            default -> new Response.Error(randomText(random, random.nextInt(40)));
        };
    }

    static Response.Batch randomBatchReply(Random random, int maxReplies, int[] sizes) {
        return new Response.Batch(randomList(random, maxReplies, () -> randomReply(random, sizes)));
    }

    /** Between 0 and {@code maxSize} items. */
    private static <T> List<T> randomList(Random random, int maxSize, Supplier<T> item) {
        return Stream.generate(item).limit(random.nextInt(maxSize + 1)).toList();
    }

    private static String randomText(Random random, int codePoints) {
        int[] alphabet = {'a', 'Z', '0', ' ', 0xe9, 0x2260, 0x1F511, 0x4E2D};
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < codePoints; i++) {
            text.appendCodePoint(alphabet[random.nextInt(alphabet.length)]);
        }
        return text.toString();
    }
}
