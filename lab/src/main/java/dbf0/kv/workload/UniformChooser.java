package dbf0.kv.workload;

import java.util.Random;

/** Every existing record equally likely, inserted ones included (YCSB's {@code uniform}). */
public final class UniformChooser implements KeyChooser {

    private final KeySpace space;

    public UniformChooser(KeySpace space) {
        this.space = space;
    }

    @Override
    public long next(Random random) {
        return random.nextLong(space.count());
    }
}
