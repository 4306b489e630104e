package dbf0.kv.storage.wal;

import static dbf0.kv.storage.wal.WalTesting.b;
import static dbf0.kv.storage.wal.WalTesting.opts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dbf0.kv.storage.KeyValue;
import dbf0.kv.storage.MapStore;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import org.junit.jupiter.api.Test;

class WalStoreScanTest {

    @Test
    void aLoggedSortedMapScansWhatWasWrittenAndAHashMapRefuses() throws Exception {
        SimulatedDirectory disk = new SimulatedDirectory();
        try (WalStore store =
                WalStore.open(
                        new MapStore(new ConcurrentSkipListMap<>()),
                        opts(FsyncPolicy.ALWAYS),
                        disk.mount())) {
            store.put(b("b"), b("2"));
            store.put(b("a"), b("1"));
            store.put(b("c"), b("3"));
            store.delete(b("b"));
            assertThat(store.ordered()).isTrue();
            assertThat(store.scan(b("a"), null, 10))
                    .containsExactly(new KeyValue(b("a"), b("1")), new KeyValue(b("c"), b("3")));
        }
        try (WalStore store =
                WalStore.open(
                        new MapStore(new ConcurrentHashMap<>()),
                        opts(FsyncPolicy.ALWAYS),
                        new SimulatedDirectory().mount())) {
            assertThat(store.ordered()).isFalse();
            assertThatThrownBy(() -> store.scan(null, null, 1))
                    .isInstanceOf(UnsupportedOperationException.class);
        }
    }
}
