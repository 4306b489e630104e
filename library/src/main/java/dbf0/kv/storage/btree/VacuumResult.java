package dbf0.kv.storage.btree;

import dbf0.common.Words;

/**
 * What a vacuum did ({@link BTreeStore#vacuum}).
 *
 * @param pagesBefore pages in the tree's file before, free and empty ones included
 * @param pagesAfter pages in the new file
 * @param keys keys copied into it
 */
public record VacuumResult(long pagesBefore, long pagesAfter, long keys) {

    /** One line in words, such as INFO and {@code dbf0 compact} print. */
    public String summary() {
        return String.format(
                "vacuumed %s into %s (%s)",
                Words.count(pagesBefore, "page"),
                Words.count(pagesAfter, "page"),
                Words.count(keys, "key"));
    }
}
