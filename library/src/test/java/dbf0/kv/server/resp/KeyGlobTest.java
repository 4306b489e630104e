package dbf0.kv.server.resp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class KeyGlobTest {

    private static boolean matches(String pattern, String key) {
        return new KeyGlob(pattern.getBytes(StandardCharsets.ISO_8859_1))
                .matches(key.getBytes(StandardCharsets.ISO_8859_1));
    }

    @Test
    void theGlobsOfRedissScanDocs() {
        assertThat(matches("h?llo", "hello")).isTrue();
        assertThat(matches("h?llo", "hllo")).isFalse();
        assertThat(matches("h*llo", "hllo")).isTrue();
        assertThat(matches("h*llo", "heeeello")).isTrue();
        assertThat(matches("h*llo", "hello!")).isFalse();
        assertThat(matches("h[ae]llo", "hallo")).isTrue();
        assertThat(matches("h[ae]llo", "hillo")).isFalse();
        assertThat(matches("h[^e]llo", "hallo")).isTrue();
        assertThat(matches("h[^e]llo", "hello")).isFalse();
        assertThat(matches("h[a-b]llo", "hbllo")).isTrue();
        assertThat(matches("h[b-a]llo", "hbllo")).as("a range either way round").isTrue();
        assertThat(matches("h[a-b]llo", "hcllo")).isFalse();
        assertThat(matches("*", "")).isTrue();
        assertThat(matches("k*", "k")).isTrue();
        assertThat(matches("k*", "user1")).isFalse();
    }

    @Test
    void escapesSetsWithoutAnEndAndBytesAboveAscii() {
        assertThat(matches("a\\*b", "a*b")).isTrue();
        assertThat(matches("a\\*b", "axb")).isFalse();
        assertThat(matches("[\\]]", "]")).isTrue();
        assertThat(matches("a\\", "a\\")).as("a trailing backslash is itself").isTrue();
        assertThat(matches("[ab", "b")).as("a set without ] runs to the end").isTrue();
        assertThat(matches("[\u00e0-\u00ff]", "\u00e9")).as("bytes compare unsigned").isTrue();
        assertThat(matches("user*[0-9]", "user12x")).isFalse();
        assertThat(matches("*1*2*", "a1b2c")).isTrue();
    }

    @Test
    @Timeout(5)
    void manyStarsCostTheProductOfTheLengthsNotAnExponential() {
        String key = "a".repeat(10_000);
        assertThat(matches("a*".repeat(50) + "b", key)).isFalse();
        assertThat(matches("*a".repeat(50), key)).isTrue();
    }
}
