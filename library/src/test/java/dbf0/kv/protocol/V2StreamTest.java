package dbf0.kv.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The blocking helpers: many frames on one stream, and the two kinds of end of stream. */
class V2StreamTest {

    private static final ProtocolLimits LIMITS = ProtocolLimits.DEFAULTS;

    @Test
    void aWholeConversationOnOneStreamThenACleanEnd() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        V2Codec.writePreamble(out);
        for (Request request : V2Samples.requests()) {
            V2Codec.writeRequest(out, request, LIMITS);
        }
        InputStream in = new OneByteAtATime(out.toByteArray());
        V2Codec.readPreamble(in);
        for (Request request : V2Samples.requests()) {
            assertThat(V2Codec.readRequest(in, LIMITS))
                    .isEqualTo(new DecodeResult.Frame<>(request));
        }
        assertThatThrownBy(() -> V2Codec.readRequest(in, LIMITS))
                .isInstanceOf(CleanEofException.class)
                .hasMessageContaining("between frames");
    }

    @Test
    void responsesOnOneStreamThenACleanEnd() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Response response : V2Samples.responses()) {
            V2Codec.writeResponse(out, response, LIMITS);
        }
        InputStream in = new OneByteAtATime(out.toByteArray());
        for (Response response : V2Samples.responses()) {
            assertThat(V2Codec.readResponse(in, LIMITS))
                    .isEqualTo(new DecodeResult.Frame<>(response));
        }
        assertThatThrownBy(() -> V2Codec.readResponse(in, LIMITS))
                .isInstanceOf(CleanEofException.class);
    }

    @Test
    void anEmptyStreamEndsCleanly() {
        assertThatThrownBy(() -> V2Codec.readRequest(stream(), LIMITS))
                .isInstanceOf(CleanEofException.class)
                .hasMessage("stream ended between frames");
        assertThatThrownBy(() -> V2Codec.readPreamble(stream()))
                .isInstanceOf(CleanEofException.class)
                .hasMessageContaining("before the preamble");
    }

    @Test
    void endingInsideTheLengthHeaderIsMidFrame() {
        for (int got = 1; got < V2Codec.HEADER_BYTES; got++) {
            byte[] partial = Arrays.copyOf(V2Vectors.hex("00000001 50"), got);
            assertThatThrownBy(() -> V2Codec.readRequest(stream(partial), LIMITS))
                    .isExactlyInstanceOf(EOFException.class)
                    .hasMessage("stream ended mid-frame, after " + got + " of the 4 length bytes");
        }
    }

    @Test
    void endingInsideTheBodyIsMidFrame() {
        byte[] partial = V2Vectors.hex("00000008 47 000000");
        assertThatThrownBy(() -> V2Codec.readRequest(stream(partial), LIMITS))
                .isExactlyInstanceOf(EOFException.class)
                .hasMessage("stream ended mid-frame, after 4 of 8 body bytes");
        assertThatThrownBy(() -> V2Codec.readResponse(stream(V2Vectors.hex("00000001")), LIMITS))
                .isExactlyInstanceOf(EOFException.class)
                .hasMessage("stream ended mid-frame, after 0 of 1 body bytes");
    }

    @Test
    void endingInsideALargeBodyReportsHowFarItGot() {
        // Announces 1 MiB, sends 100,000 bytes: the reader has grown past its first 64 KiB chunk.
        byte[] partial = new byte[4 + 100_000];
        partial[1] = 0x10;
        assertThatThrownBy(() -> V2Codec.readRequest(stream(partial), LIMITS))
                .isExactlyInstanceOf(EOFException.class)
                .hasMessage("stream ended mid-frame, after 100000 of 1048576 body bytes");
    }

    @Test
    void endingInsideThePreambleIsNotClean() {
        assertThatThrownBy(() -> V2Codec.readPreamble(stream(V2Codec.MAGIC)))
                .isExactlyInstanceOf(EOFException.class)
                .hasMessageContaining("inside the preamble");
    }

    @Test
    void anOverLimitHeaderIsFatalAndNothingBeyondItIsRead() throws IOException {
        ByteArrayInputStream in = new ByteArrayInputStream(V2Vectors.hex("7fffffff 47 00000000"));
        assertThatThrownBy(() -> V2Codec.readRequest(in, LIMITS))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("2147483647");
        assertThat(in.available()).isEqualTo(5);
    }

    @Test
    void anInvalidFrameIsSkippedWholeAndTheNextOneIsRead() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(V2Vectors.hex("00000009 47 00000010 6b657931"));
        V2Codec.writeRequest(out, new Request.Ping(), LIMITS);
        InputStream in = stream(out.toByteArray());
        assertThat(V2Codec.readRequest(in, LIMITS))
                .isEqualTo(
                        new DecodeResult.Invalid<>(
                                "key of 16 bytes runs past the end of the frame (4 bytes left)"));
        assertThat(V2Codec.readRequest(in, LIMITS))
                .isEqualTo(new DecodeResult.Frame<>(new Request.Ping()));
    }

    @Test
    void writersSendEachFrameInOneWrite() throws IOException {
        List<byte[]> writes = new ArrayList<>();
        OutputStream recorder =
                new OutputStream() {
                    @Override
                    public void write(int b) {
                        writes.add(new byte[] {(byte) b});
                    }

                    @Override
                    public void write(byte[] b, int off, int len) {
                        writes.add(Arrays.copyOfRange(b, off, off + len));
                    }
                };
        V2Codec.writePreamble(recorder);
        V2Codec.writeRequest(recorder, V2Samples.requests().get(8), LIMITS);
        V2Codec.writeResponse(recorder, V2Samples.responses().get(8), LIMITS);
        assertThat(writes).hasSize(3);
        assertThat(writes.get(0)).isEqualTo(V2Codec.preamble());
    }

    private static InputStream stream(byte... bytes) {
        return new ByteArrayInputStream(bytes);
    }

    /** A stream that hands out one byte per read, like a slow socket: the reader must loop. */
    private static final class OneByteAtATime extends FilterInputStream {
        OneByteAtATime(byte[] bytes) {
            super(new ByteArrayInputStream(bytes));
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            return super.read(b, off, Math.min(len, 1));
        }
    }
}
