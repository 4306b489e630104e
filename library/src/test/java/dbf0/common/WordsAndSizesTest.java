package dbf0.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The words and sizes that programs print. */
class WordsAndSizesTest {

    @Test
    void aCountTakesTheNounForItsNumber() {
        assertThat(Words.count(1, "table")).isEqualTo("1 table");
        assertThat(Words.count(0, "table")).isEqualTo("0 tables");
        assertThat(Words.count(2, "table")).isEqualTo("2 tables");
        assertThat(Words.count(12_345, "connection")).isEqualTo("12,345 connections");
        assertThat(Words.count(1, "entry", "entries")).isEqualTo("1 entry");
        assertThat(Words.count(3, "entry", "entries")).isEqualTo("3 entries");
        assertThat(Words.noun(1, "miss", "misses")).isEqualTo("miss");
        assertThat(Words.noun(0, "key")).isEqualTo("keys");
    }

    @Test
    void aSizeIsWrittenInItsLargestWholeUnit() {
        assertThat(ByteSizes.format(0)).isEqualTo("0 B");
        assertThat(ByteSizes.format(1023)).isEqualTo("1023 B");
        assertThat(ByteSizes.format(1024)).isEqualTo("1 KiB");
        assertThat(ByteSizes.format(1536)).isEqualTo("1.5 KiB");
        assertThat(ByteSizes.format(32L << 20)).isEqualTo("32 MiB");
        assertThat(ByteSizes.format((1L << 20) - 1)).isEqualTo("1 MiB");
        assertThat(ByteSizes.format((5L << 30) / 2)).isEqualTo("2.5 GiB");
        assertThat(ByteSizes.format(Long.MAX_VALUE)).isEqualTo("8 EiB");
        assertThatThrownBy(() -> ByteSizes.format(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void whatFormatWritesParsesBackWhenWhole() {
        for (long size : new long[] {512, 64L << 10, 32L << 20, 3L << 30}) {
            String text = ByteSizes.format(size);
            assertThat(ByteSizes.parse(text.replace(" ", ""))).as(text).isEqualTo(size);
        }
    }
}
