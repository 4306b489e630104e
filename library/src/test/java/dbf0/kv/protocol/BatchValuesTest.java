package dbf0.kv.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dbf0.common.ByteArrayWrapper;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a batch value may hold: the encoder relies on these checks to write only valid frames. */
class BatchValuesTest {

    private static final ByteArrayWrapper KEY = new ByteArrayWrapper(new byte[] {'k'});

    @Test
    void aRequestBatchHoldsOnlyGetSetAndDelete() {
        Request.Batch batch =
                new Request.Batch(
                        List.of(
                                new Request.Get(KEY),
                                new Request.Set(KEY, KEY),
                                new Request.Delete(KEY)));
        assertThat(batch.ops()).hasSize(3);
        assertThatThrownBy(() -> new Request.Batch(List.of(new Request.Ping())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a batch holds only GET, SET and DELETE operations, not Ping[]");
        assertThatThrownBy(() -> new Request.Batch(List.of(batch)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(
                        "a batch holds only GET, SET and DELETE operations, not Batch[");
    }

    @Test
    void aResponseBatchHoldsNoBatch() {
        Response.Batch batch =
                new Response.Batch(List.of(new Response.Ok(), new Response.NotFound()));
        assertThat(batch.replies()).hasSize(2);
        assertThatThrownBy(() -> new Response.Batch(List.of(batch)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a batch response cannot hold another batch");
    }
}
