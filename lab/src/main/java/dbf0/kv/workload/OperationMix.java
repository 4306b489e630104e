package dbf0.kv.workload;

import java.util.Random;

/** The shares of a keyed workload's operations; they sum to 1. */
public record OperationMix(double read, double update, double insert, double readModifyWrite) {

    public OperationMix {
        for (double share : new double[] {read, update, insert, readModifyWrite}) {
            if (!(share >= 0 && share <= 1)) {
                throw new IllegalArgumentException("an operation share must be in [0, 1]: " + this);
            }
        }
        if (Math.abs(read + update + insert + readModifyWrite - 1) > 1e-9) {
            throw new IllegalArgumentException("operation shares must sum to 1: " + this);
        }
    }

    /**
     * The seed's mix with inserts: updates {@code setFraction}, inserts {@code insertFraction},
     * reads the rest.
     */
    public static OperationMix of(double setFraction, double insertFraction) {
        if (setFraction + insertFraction > 1 + 1e-9) {
            throw new IllegalArgumentException(
                    "setFrac + insert fraction must be at most 1, got "
                            + setFraction
                            + " + "
                            + insertFraction);
        }
        return new OperationMix(
                Math.max(0, 1 - setFraction - insertFraction), setFraction, insertFraction, 0);
    }

    /** One operation drawn with these shares. */
    public OperationKind pick(Random random) {
        double u = random.nextDouble();
        double edge = read;
        if (u < edge) {
            return OperationKind.READ;
        }
        if (u < (edge += update)) {
            return OperationKind.UPDATE;
        }
        if (u < (edge += insert)) {
            return OperationKind.INSERT;
        }
        if (readModifyWrite > 0) {
            return OperationKind.READ_MODIFY_WRITE;
        }
        // shares that sum to 1 within rounding can leave u just above the last edge: give it to the
        // last operation that has a share, never to one that has none
        return insert > 0
                ? OperationKind.INSERT
                : update > 0 ? OperationKind.UPDATE : OperationKind.READ;
    }
}
