package dbf0.base.client;

import java.util.List;

/** A group of connectors started and stopped together. */
public class BaseClient<C extends BaseConnector> {

  private final List<C> connectors;

  public BaseClient(List<C> connectors) {
    this.connectors = List.copyOf(connectors);
  }

  public List<C> getConnectors() {
    return connectors;
  }

  public void start() {
    connectors.forEach(BaseConnector::start);
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
}
