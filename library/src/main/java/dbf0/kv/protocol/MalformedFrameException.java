package dbf0.kv.protocol;

/**
 * Something inside a complete v2 frame is wrong. Thrown from deep in the parser and caught once per
 * frame, where it becomes {@link DecodeResult.Invalid}; no stack trace, as it is not a bug.
 */
final class MalformedFrameException extends RuntimeException {
    MalformedFrameException(String message) {
        super(message, null, false, false);
    }
}
