package dbf0.kv.storage;

import dbf0.common.ByteArrayWrapper;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.util.Collections;
import java.util.HashMap;
import java.util.Hashtable;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Supplier;

/**
 * The registry of map backends a server can run on, by name.
 *
 * <ul>
 *   <li>{@code hashmap}: {@link HashMap}, <b>not thread-safe</b>: the race demos use it to show
 *       what goes wrong;
 *   <li>{@code hashtable}: {@link Hashtable}, one lock around every call;
 *   <li>{@code synchronized}: {@link Collections#synchronizedMap} over a HashMap, the same idea;
 *   <li>{@code rwlock}: {@link ReadWriteLockedMap}, a HashMap behind one read/write lock: readers
 *       share it, writers take it alone;
 *   <li>{@code striped}: {@link StripedMap}, 16 HashMaps each behind its own lock (the C++ store's
 *       16 shards); {@code striped:N} for N of them, rounded up to a power of two;
 *   <li>{@code concurrent}: {@link ConcurrentHashMap}, lock-free reads and per-bin locks; {@code
 *       concurrent:N} sized for N keys up front, so that a run that inserts that many never stops
 *       to resize (its table, 4 to 8 bytes a slot, is allocated at the first put);
 *   <li>{@code skiplist}: {@link ConcurrentSkipListMap}, sorted and lock-free: the named backend
 *       that answers range scans ({@link MapStore#scan}; so does {@code java.util.TreeMap} by class
 *       name, unsafe like {@code hashmap});
 *   <li>{@code constant}: {@link ConstantMap}, not a map but a measuring instrument that ignores
 *       writes and answers every get with one value of 64 bytes ({@code constant:N} for N bytes):
 *       the ceiling a benchmark reaches with the map taken out. It is not among {@link #names()};
 *   <li>any fully qualified class name of a {@link Map} with a public no-argument constructor.
 * </ul>
 */
public final class MapBackends {

    private static final Map<String, Supplier<Map<ByteArrayWrapper, ByteArrayWrapper>>> NAMED =
            new LinkedHashMap<>();

    static {
        NAMED.put("hashmap", HashMap::new);
        NAMED.put("hashtable", Hashtable::new);
        NAMED.put("synchronized", () -> Collections.synchronizedMap(new HashMap<>()));
        NAMED.put("rwlock", ReadWriteLockedMap::new);
        NAMED.put("striped", StripedMap::new);
        NAMED.put("concurrent", ConcurrentHashMap::new);
        NAMED.put("skiplist", ConcurrentSkipListMap::new);
    }

    private MapBackends() {}

    /** {@code striped:N}: N stripes. */
    private static final String STRIPED_PREFIX = "striped:";

    /**
     * The registered short names, in a stable order ({@code striped:N} is {@code striped} with N
     * stripes).
     *
     * @return the names, unmodifiable
     */
    public static java.util.Set<String> names() {
        return Collections.unmodifiableSet(NAMED.keySet());
    }

    /**
     * True only for backends known to be safe to share between server threads: every registered
     * name but {@code hashmap}, and a class name only when the class is a {@link
     * java.util.concurrent.ConcurrentMap} or {@link Hashtable}. Anything else (a {@code
     * java.util.TreeMap}, a class of your own) answers false, because nothing here knows.
     *
     * @param name a registered name or a class name
     * @return true if the backend is known to be thread-safe
     */
    public static boolean isThreadSafe(String name) {
        if (NAMED.containsKey(name)) {
            return !"hashmap".equals(name);
        }
        if (name.startsWith(CONCURRENT_PREFIX)) {
            try {
                expectedKeys(name);
                return true;
            } catch (IllegalArgumentException e) {
                return false;
            }
        }
        if (name.equals(CONSTANT) || name.startsWith(CONSTANT_PREFIX)) {
            try {
                constantBytes(name);
                return true;
            } catch (IllegalArgumentException e) {
                return false;
            }
        }
        if (name.startsWith(STRIPED_PREFIX)) {
            try {
                stripes(name);
                return true;
            } catch (IllegalArgumentException e) {
                return false;
            }
        }
        try {
            Class<?> type = Class.forName(name);
            return java.util.concurrent.ConcurrentMap.class.isAssignableFrom(type)
                    || Hashtable.class.isAssignableFrom(type);
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /**
     * A new, empty map for a short name or a class name.
     *
     * @param name a name from {@link #names()}, or the class name of a {@link Map} with a public
     *     no-argument constructor
     * @return a new, empty map
     * @throws IllegalArgumentException naming the accepted values, when {@code name} is neither
     */
    public static Map<ByteArrayWrapper, ByteArrayWrapper> create(String name) {
        Supplier<Map<ByteArrayWrapper, ByteArrayWrapper>> supplier = NAMED.get(name);
        if (supplier != null) {
            return supplier.get();
        }
        if (name.startsWith(STRIPED_PREFIX)) {
            return new StripedMap<>(stripes(name));
        }
        if (name.equals(CONSTANT) || name.startsWith(CONSTANT_PREFIX)) {
            return new ConstantMap(constantBytes(name));
        }
        if (name.startsWith(CONCURRENT_PREFIX)) {
            return new ConcurrentHashMap<>(expectedKeys(name));
        }
        return instantiate(name);
    }

    /**
     * Fails fast with the same message as {@link #create} without keeping the map.
     *
     * @param name as for {@link #create}
     * @throws IllegalArgumentException as {@link #create} does
     */
    public static void validate(String name) {
        create(name);
    }

    /** {@code concurrent:N}: a ConcurrentHashMap sized for N keys. */
    private static final String CONCURRENT_PREFIX = "concurrent:";

    private static int expectedKeys(String name) {
        return number(name, CONCURRENT_PREFIX, 1, 1 << 28, "expected keys");
    }

    /**
     * The measuring instrument ({@link ConstantMap}); not among {@link #names()}, which are maps.
     */
    private static final String CONSTANT = "constant";

    /** {@code constant:N}: the instrument's value length. */
    private static final String CONSTANT_PREFIX = "constant:";

    private static int constantBytes(String name) {
        if (name.equals(CONSTANT)) {
            return 64;
        }
        return number(name, CONSTANT_PREFIX, 0, 1 << 20, "bytes of value");
    }

    private static int stripes(String name) {
        return number(name, STRIPED_PREFIX, 1, 1 << 16, "stripes");
    }

    /** The N of {@code prefixN}, from min to max, or an error that says what is wanted. */
    private static int number(String name, String prefix, int min, int max, String what) {
        String count = name.substring(prefix.length());
        try {
            int n = Integer.parseInt(count);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // the message below says what is wanted
        }
        throw new IllegalArgumentException(
                String.format(
                        "%sN wants N from %d to %d %s, got '%s'", prefix, min, max, what, count));
    }

    @SuppressWarnings("unchecked")
    private static Map<ByteArrayWrapper, ByteArrayWrapper> instantiate(String className) {
        String known =
                "use one of "
                        + String.join(", ", NAMED.keySet())
                        + ", striped:N, concurrent:N, constant:N, or the class name of a"
                        + " java.util.Map with a public no-argument constructor";
        Class<?> type;
        try {
            type = Class.forName(className);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalArgumentException("unknown map type '" + className + "': " + known);
        }
        if (!Map.class.isAssignableFrom(type)) {
            throw new IllegalArgumentException(className + " is not a java.util.Map: " + known);
        }
        try {
            Constructor<?> constructor = type.getConstructor();
            return (Map<ByteArrayWrapper, ByteArrayWrapper>) constructor.newInstance();
        } catch (NoSuchMethodException | IllegalAccessException | InstantiationException e) {
            throw new IllegalArgumentException(
                    className + " has no public no-argument constructor: " + known);
        } catch (InvocationTargetException e) {
            throw new IllegalArgumentException(
                    className + "() threw " + e.getCause(), e.getCause());
        }
    }
}
