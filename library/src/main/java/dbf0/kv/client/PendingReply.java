package dbf0.kv.client;

import dbf0.kv.protocol.Response;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * A request sent and not yet answered: the future its caller holds, and how its reply becomes the
 * future's value. This is where a reply turns into a result or a failure: an ERROR or MOVED reply
 * fails the future ({@link ServerErrorException}, {@link MovedException}), and so does a reply that
 * {@code convert} rejects (the wrong kind for the request: a server bug).
 *
 * @param future completed with the converted reply, or failed
 * @param convert the request's reply as its caller's value; throws if the reply does not fit
 */
record PendingReply<T>(CompletableFuture<T> future, Function<Response, T> convert) {

    /** Completes the future with the reply to this request. */
    void complete(Response response) {
        if (response instanceof Response.Error || response instanceof Response.Moved) {
            future.completeExceptionally(ServerErrorException.of(response));
            return;
        }
        try {
            future.complete(convert.apply(response));
        } catch (RuntimeException e) {
            future.completeExceptionally(e);
        }
    }
}
