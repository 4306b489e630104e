package dbf0.kv.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(30)
class HistoryRecorderTest {

    @TempDir Path tmp;

    private static final byte[] K = {0x6b};

    private static History<String, KvModel.Input, KvModel.Output> read(Path file) throws Exception {
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return Dbf0HistoryFormat.parse(in, file.toString());
        }
    }

    @Test
    void whatIsRecordedIsWhatTheParserReads() throws Exception {
        Path file = tmp.resolve("h.jsonl");
        HistoryRecorder.Summary summary;
        try (HistoryRecorder recorder = HistoryRecorder.open(file, 100)) {
            HistoryRecorder.Log log = recorder.log();
            assertThat(log.admit()).isTrue();
            log.completed(0, HistoryRecorder.Op.SET, K, new byte[] {1}, null, 10, 20);
            assertThat(log.admit()).isTrue();
            log.completed(1, HistoryRecorder.Op.GET, K, new byte[] {1}, true, 30, 40);
            assertThat(log.admit()).isTrue();
            log.pending(2, HistoryRecorder.Op.SET, K, new byte[] {2}, 50, null);
            summary = recorder.finish();
        }
        assertThat(summary).isEqualTo(new HistoryRecorder.Summary(3, false));
        var history = read(file);
        assertThat(history.operations()).extracting(Operation::client).containsExactly(0, 1, 2);
        assertThat(history.operations().get(1).output()).isEqualTo(KvModel.Output.found("01"));
        assertThat(history.operations().get(2).isPending()).isTrue();
        assertThat(LinearizabilityChecker.check(history, Duration.ofSeconds(5)).isLinearizable())
                .isTrue();
    }

    @Test
    void aFailedOperationIsWrittenAsFailAndConstrainsNothing() throws Exception {
        // A refused SET of 2, then a GET that finds 1: linearizable only because the checker
        // drops the failed write (had it been recorded as ok, the GET would contradict it).
        Path file = tmp.resolve("fail.jsonl");
        try (HistoryRecorder recorder = HistoryRecorder.open(file, 100)) {
            HistoryRecorder.Log log = recorder.log();
            assertThat(log.admit()).isTrue();
            log.completed(0, HistoryRecorder.Op.SET, K, new byte[] {1}, null, 10, 20);
            assertThat(log.admit()).isTrue();
            log.failed(1, HistoryRecorder.Op.SET, K, new byte[] {2}, 30, 40);
            assertThat(log.admit()).isTrue();
            log.completed(0, HistoryRecorder.Op.GET, K, new byte[] {1}, true, 50, 60);
        }
        assertThat(Files.readAllLines(file).get(1))
                .isEqualTo(
                        Dbf0HistoryFormat.line(1, "set", K, new byte[] {2}, null, 30, 40L, "fail"));
        var history = read(file);
        assertThat(history.operations()).extracting(Operation::client).containsExactly(0, 0);
        assertThat(LinearizabilityChecker.check(history, Duration.ofSeconds(5)).isLinearizable())
                .isTrue();
    }

    @Test
    void theEncoderWritesExactlyWhatTheFormatDefines() throws Exception {
        var encoder = new HistoryRecorder.LineEncoder();
        var random = new java.util.Random(3);
        for (int n = 0; n < 1_000; n++) {
            byte[] key = new byte[1 + random.nextInt(20)];
            random.nextBytes(key);
            byte[] value = random.nextBoolean() ? null : new byte[random.nextInt(300)];
            if (value != null) {
                random.nextBytes(value);
            }
            Boolean found =
                    switch (random.nextInt(3)) {
                        case 0 -> null;
                        case 1 -> true;
                        default -> false;
                    };
            int client = random.nextInt();
            long invoke = random.nextLong();
            boolean pending = random.nextBoolean();
            Long complete = pending && random.nextBoolean() ? null : random.nextLong();
            HistoryRecorder.Op op = HistoryRecorder.Op.values()[random.nextInt(3)];
            var bytes = new java.io.ByteArrayOutputStream();
            encoder.line(
                    bytes,
                    client,
                    op,
                    key,
                    value,
                    found,
                    invoke,
                    complete == null ? Long.MIN_VALUE : complete,
                    (byte) (pending ? 1 : 0));
            assertThat(bytes.toString(StandardCharsets.US_ASCII))
                    .isEqualTo(
                            Dbf0HistoryFormat.line(
                                            client,
                                            op.name,
                                            key,
                                            value,
                                            found,
                                            invoke,
                                            complete,
                                            pending ? "pending" : "ok")
                                    + "\n");
        }
    }

    @Test
    void chunksFromManyThreadsAllArriveAndTheLimitHolds() throws Exception {
        Path file = tmp.resolve("many.jsonl");
        int limit = 10_000;
        HistoryRecorder recorder = HistoryRecorder.open(file, limit);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int client = t;
            HistoryRecorder.Log log = recorder.log();
            threads.add(
                    Thread.ofPlatform()
                            .start(
                                    () -> {
                                        for (int i = 0; i < 5_000; i++) {
                                            if (log.admit()) {
                                                log.completed(
                                                        client,
                                                        HistoryRecorder.Op.SET,
                                                        new byte[] {(byte) client},
                                                        new byte[] {(byte) i},
                                                        null,
                                                        i,
                                                        i);
                                            }
                                        }
                                    }));
        }
        for (Thread t : threads) {
            t.join();
        }
        HistoryRecorder.Summary summary = recorder.finish();
        assertThat(summary.truncated()).isTrue();
        assertThat(summary.operations()).isLessThanOrEqualTo(limit).isGreaterThan(limit - 4 * 64);
        assertThat(Files.readAllLines(file)).hasSize((int) summary.operations());
    }

    @Test
    void aReadAnsweredAfterTheCutIsKeptAsPending() throws Exception {
        // One slot: the second admission fails. A GET that was admitted before and answered after
        // may have seen the unrecorded write, so it must not be recorded as "found nothing".
        Path file = tmp.resolve("cut.jsonl");
        try (HistoryRecorder recorder = HistoryRecorder.open(file, 1)) {
            HistoryRecorder.Log reader = recorder.log();
            HistoryRecorder.Log writer = recorder.log();
            assertThat(reader.admit()).isTrue();
            assertThat(writer.admit()).as("past the limit").isFalse();
            reader.completed(0, HistoryRecorder.Op.GET, K, new byte[] {9}, true, 10, 30);
            assertThat(recorder.finish()).isEqualTo(new HistoryRecorder.Summary(1, true));
        }
        var history = read(file);
        assertThat(history.operations())
                .singleElement()
                .satisfies(op -> assertThat(op.isPending()).isTrue());
        assertThat(LinearizabilityChecker.check(history, Duration.ofSeconds(5)).isLinearizable())
                .isTrue();
    }

    @Test
    void aZeroLimitRecordsNothingAndSaysSo() throws Exception {
        Path file = tmp.resolve("none.jsonl");
        try (HistoryRecorder recorder = HistoryRecorder.open(file, 0)) {
            assertThat(recorder.log().admit()).isFalse();
            assertThat(recorder.finish()).isEqualTo(new HistoryRecorder.Summary(0, true));
        }
        assertThat(Files.readAllLines(file)).isEmpty();
    }
}
