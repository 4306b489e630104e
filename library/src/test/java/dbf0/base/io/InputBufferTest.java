package dbf0.base.io;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * The input buffer's bound: capacity <= max(initial, 2 x bytes buffered), whatever a header says.
 */
class InputBufferTest {

    private static final int SIXTEEN_MIB = 16 << 20;

    @Test
    void aLengthHeaderAloneAllocatesNothing() {
        InputBuffer input = new InputBuffer(4096);
        ByteBuffer buffer =
                input.forWriting(SIXTEEN_MIB); // the session was told a 16 MiB frame is coming
        buffer.put(new byte[] {(byte) 0xDB, 2, 1, 0, 0, 0});
        input.forReading();
        input.afterReading();
        assertThat(input.forWriting(SIXTEEN_MIB).capacity()).isEqualTo(4096);
    }

    @Test
    void capacityGrowsWithTheBytesThatArriveAndStopsAtWhatIsNeeded() {
        InputBuffer input = new InputBuffer(4096);
        int needed = 5_000_000;
        int received = 0;
        while (received < needed) {
            ByteBuffer buffer = input.forWriting(needed);
            assertThat(buffer.capacity())
                    .as("after %d bytes", received)
                    .isLessThanOrEqualTo(Math.max(4096, 2 * received));
            int n = Math.min(buffer.remaining(), 100_000); // a read delivers at most this much
            buffer.position(buffer.position() + n);
            received += n;
        }
        assertThat(input.capacity()).isEqualTo(needed); // the last step stopped at the frame's end
    }
}
