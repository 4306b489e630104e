package dbf0.kv.storage;

import java.util.AbstractMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.BiConsumer;

/**
 * One {@link HashMap} behind a {@link ReentrantReadWriteLock}: any number of readers at once, a
 * writer alone. It still has one lock for the whole map, so writers serialise exactly as they do
 * under {@code synchronized}; it helps only when reads dominate, and even then every read writes
 * the lock's shared reader count, a cache line all cores fight over.
 *
 * <p>Single-key calls and {@link #size}, {@link #clear} and {@link #forEach} are atomic; {@link
 * #entrySet} is a copy, and the Map defaults not overridden here ({@code compute}, {@code merge},
 * ...) are get-then-put, not atomic.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class ReadWriteLockedMap<K, V> extends AbstractMap<K, V> {

    private final HashMap<K, V> map = new HashMap<>();
    private final Lock read;
    private final Lock write;

    /** An empty map, the {@code rwlock} backend. */
    public ReadWriteLockedMap() {
        ReentrantReadWriteLock lock =
                new ReentrantReadWriteLock(); // non-fair, the default and the faster
        this.read = lock.readLock();
        this.write = lock.writeLock();
    }

    @Override
    public V get(Object key) {
        read.lock();
        try {
            return map.get(key);
        } finally {
            read.unlock();
        }
    }

    @Override
    public boolean containsKey(Object key) {
        read.lock();
        try {
            return map.containsKey(key);
        } finally {
            read.unlock();
        }
    }

    @Override
    public int size() {
        read.lock();
        try {
            return map.size();
        } finally {
            read.unlock();
        }
    }

    @Override
    public boolean isEmpty() {
        return size() == 0;
    }

    @Override
    public V put(K key, V value) {
        write.lock();
        try {
            return map.put(key, value);
        } finally {
            write.unlock();
        }
    }

    @Override
    public V putIfAbsent(K key, V value) {
        write.lock();
        try {
            return map.putIfAbsent(key, value);
        } finally {
            write.unlock();
        }
    }

    @Override
    public V remove(Object key) {
        write.lock();
        try {
            return map.remove(key);
        } finally {
            write.unlock();
        }
    }

    @Override
    public void clear() {
        write.lock();
        try {
            map.clear();
        } finally {
            write.unlock();
        }
    }

    /** Visits every entry under the read lock: {@code action} must not write to this map. */
    @Override
    public void forEach(BiConsumer<? super K, ? super V> action) {
        read.lock();
        try {
            map.forEach(action);
        } finally {
            read.unlock();
        }
    }

    /** A copy of the entries; changing it does not change the map. */
    @Override
    public Set<Map.Entry<K, V>> entrySet() {
        read.lock();
        try {
            return new HashMap<>(map).entrySet();
        } finally {
            read.unlock();
        }
    }
}
