package dbf0.base.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonParser;
import org.junit.jupiter.api.Test;

class KeyValueClientStatsTest {

    @Test
    void serialisesToExactlyTheSeedNames() {
        KeyValueClientStats stats = new KeyValueClientStats();
        stats.countSet();
        stats.countSet();
        stats.countGet(true, false);
        stats.countGet(false, true);
        stats.countGet(false, false);
        assertThat(stats.toJson()).isEqualTo("{\"set\":2,\"get\":3,\"found\":1,\"missingKey\":1}");
        assertThat(JsonParser.parseString(stats.toJson()).getAsJsonObject().keySet())
                .containsExactly("set", "get", "found", "missingKey");
    }

    @Test
    void addsAndRoundTrips() {
        KeyValueClientStats a =
                KeyValueClientStats.fromJson("{\"set\":1,\"get\":2,\"found\":3,\"missingKey\":4}");
        KeyValueClientStats b =
                KeyValueClientStats.fromJson(
                        "{\"set\":10,\"get\":20,\"found\":30,\"missingKey\":40}");
        a.add(b);
        assertThat(a.getSet()).isEqualTo(11);
        assertThat(a.getGet()).isEqualTo(22);
        assertThat(a.getFound()).isEqualTo(33);
        assertThat(a.getMissingKey()).isEqualTo(44);
    }
}
