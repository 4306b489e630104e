package dbf0.kv.storage;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.primitives.Ints;
import com.google.common.util.concurrent.Striped;
import java.util.AbstractMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * A map split into stripes, plain {@link HashMap}s each behind its own lock: an operation locks
 * only the stripe its key hashes to, so threads working on different stripes never wait for each
 * other. It is the shape of the C++ store's 16 shards, and the middle rung between one global lock
 * ({@code hashtable}, {@code synchronized}) and {@link java.util.concurrent.ConcurrentHashMap},
 * which in effect locks per bin and reads without locking at all.
 *
 * <p>Guava's {@link Striped} picks a key's stripe (it smears the hash, so the stripe does not take
 * the same low bits each HashMap uses for its buckets) and rounds the count up to a power of two.
 * Each stripe's HashMap is its own monitor: it never escapes this class, so nothing else locks it.
 *
 * <p>What it guarantees: each single-key call ({@link #get}, {@link #put}, {@link #remove}, {@link
 * #containsKey}, {@link #putIfAbsent}) is atomic. What it does not: {@link #size}, {@link #clear}
 * and {@link #forEach} visit the stripes one after another, so they see no single instant while
 * writers run; {@link #entrySet} is a copy, not a live view; and the Map defaults it does not
 * override ({@code compute}, {@code merge}, ...) are get-then-put, not atomic. The server uses only
 * the single-key calls and size/clear/forEach (see {@link MapStore}).
 *
 * @param <K> the key type; its {@code hashCode} picks the stripe
 * @param <V> the value type
 */
public final class StripedMap<K, V> extends AbstractMap<K, V> {

    /** The C++ store's shard count. */
    public static final int DEFAULT_STRIPES = 16;

    private final Striped<HashMap<K, V>> stripes;

    /** A map of {@value #DEFAULT_STRIPES} stripes, the {@code striped} backend. */
    public StripedMap() {
        this(DEFAULT_STRIPES);
    }

    /**
     * A map of at least {@code stripes} stripes ({@code striped:N}), rounded up to a power of two.
     *
     * @param stripes how many HashMaps, each with its own lock; at least 1
     * @throws IllegalArgumentException when {@code stripes} is less than 1
     */
    public StripedMap(int stripes) {
        checkArgument(stripes >= 1, "a striped map needs at least one stripe, got %s", stripes);
        this.stripes = Striped.custom(stripes, HashMap::new);
    }

    /**
     * How many stripes the map has.
     *
     * @return the number of HashMaps and of locks: the count asked for, rounded up to a power of
     *     two
     */
    public int stripes() {
        return stripes.size();
    }

    /** HashMap allows a null key, and so does this map; Striped does not, so null has stripe 0. */
    private HashMap<K, V> stripeOf(Object key) {
        return key == null ? stripes.getAt(0) : stripes.get(key);
    }

    @Override
    public V get(Object key) {
        HashMap<K, V> stripe = stripeOf(key);
        synchronized (stripe) {
            return stripe.get(key);
        }
    }

    @Override
    public boolean containsKey(Object key) {
        HashMap<K, V> stripe = stripeOf(key);
        synchronized (stripe) {
            return stripe.containsKey(key);
        }
    }

    @Override
    public V put(K key, V value) {
        HashMap<K, V> stripe = stripeOf(key);
        synchronized (stripe) {
            return stripe.put(key, value);
        }
    }

    @Override
    public V putIfAbsent(K key, V value) {
        HashMap<K, V> stripe = stripeOf(key);
        synchronized (stripe) {
            return stripe.putIfAbsent(key, value);
        }
    }

    @Override
    public V remove(Object key) {
        HashMap<K, V> stripe = stripeOf(key);
        synchronized (stripe) {
            return stripe.remove(key);
        }
    }

    @Override
    public int size() {
        long total = 0;
        for (int i = 0; i < stripes.size(); i++) {
            HashMap<K, V> stripe = stripes.getAt(i);
            synchronized (stripe) {
                total += stripe.size();
            }
        }
        return Ints.saturatedCast(total);
    }

    @Override
    public boolean isEmpty() {
        return size() == 0;
    }

    @Override
    public void clear() {
        for (int i = 0; i < stripes.size(); i++) {
            HashMap<K, V> stripe = stripes.getAt(i);
            synchronized (stripe) {
                stripe.clear();
            }
        }
    }

    /**
     * Visits each stripe under its lock: {@code action} must not touch this map's other stripes.
     */
    @Override
    public void forEach(BiConsumer<? super K, ? super V> action) {
        for (int i = 0; i < stripes.size(); i++) {
            HashMap<K, V> stripe = stripes.getAt(i);
            synchronized (stripe) {
                stripe.forEach(action);
            }
        }
    }

    /** A copy of the entries, stripe by stripe; changing it does not change the map. */
    @Override
    public Set<Map.Entry<K, V>> entrySet() {
        Map<K, V> copy = new HashMap<>();
        forEach(copy::put);
        return copy.entrySet();
    }
}
