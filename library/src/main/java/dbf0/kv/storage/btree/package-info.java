/**
 * Chapter 6, the disk's other corner: a B+tree that updates pages in place, behind the same {@link
 * dbf0.kv.storage.Store} as the maps and the LSM tree. Read in this order: {@link
 * dbf0.kv.storage.btree.Page} (the header), {@link dbf0.kv.storage.btree.Cells} and {@link
 * dbf0.kv.storage.btree.SlottedPage} (the layout), {@link dbf0.kv.storage.btree.Overflow} (large
 * values), {@link dbf0.kv.storage.btree.PageFile} (pages on disk), {@link
 * dbf0.kv.storage.btree.BufferPool} (pages in memory), {@link dbf0.kv.storage.btree.BTree} (search,
 * insert, split, delete, scan), {@link dbf0.kv.storage.btree.Checkpoint} and {@link
 * dbf0.kv.storage.btree.DoubleWrite} (crash safety), {@link dbf0.kv.storage.btree.Vacuum} (space
 * given back), {@link dbf0.kv.storage.btree.BTreeStore} (the store). See docs/6-disk.md.
 */
package dbf0.kv.storage.btree;
