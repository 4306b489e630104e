package dbf0.kv.protocol;

import java.io.EOFException;

/**
 * The stream ended exactly between two frames (or before the preamble): the peer closed its side
 * after whole frames only. For a server this is how a client says goodbye, not an error.
 *
 * <p>A stream that ends inside a frame throws a plain {@link EOFException} instead, whose message
 * says how far the frame got: that peer broke off mid-sentence.
 */
public class CleanEofException extends EOFException {

    public CleanEofException(String message) {
        super(message);
    }
}
