package dbf0.base.client;

import java.util.List;
import org.HdrHistogram.Histogram;

/** A group of connectors started and stopped together, and what they counted, summed. */
public class BaseClient<C extends BaseConnector> {

    private final List<C> connectors;

    public BaseClient(List<C> connectors) {
        this.connectors = List.copyOf(connectors);
    }

    public List<C> getConnectors() {
        return connectors;
    }

    /** Starts every connector on a platform thread of its own. */
    public void start() {
        connectors.forEach(BaseConnector::start);
    }

    /**
     * Starts every connector on a thread made by {@code builder} (used by one thread at a time).
     */
    public void start(Thread.Builder builder) {
        connectors.forEach(c -> c.start(builder));
    }

    /** Operations that start before {@code nanos} (a System.nanoTime value) are not counted. */
    public void measureFrom(long nanos) {
        connectors.forEach(c -> c.getLatencies().measureFrom(nanos));
    }

    /** Asks every connector to stop, then waits for all of them. */
    public void stopAndJoin() throws InterruptedException {
        connectors.forEach(BaseConnector::stop);
        for (C connector : connectors) {
            connector.join();
        }
    }

    /** Sum of {@link BaseConnector#getErrors()}; call after {@link #stopAndJoin()}. */
    public long totalErrors() {
        return connectors.stream().mapToLong(BaseConnector::getErrors).sum();
    }

    /** Every connector's counts added up; call after {@link #stopAndJoin()}. */
    public KeyValueClientStats totalStats() {
        KeyValueClientStats total = new KeyValueClientStats();
        connectors.forEach(c -> total.add(c.getStats()));
        return total;
    }

    /** Every connector's latencies in one histogram; call after {@link #stopAndJoin()}. */
    public Histogram totalLatencies() {
        Histogram total = new Histogram(3);
        connectors.forEach(c -> total.add(c.getLatencies().histogram()));
        return total;
    }
}
