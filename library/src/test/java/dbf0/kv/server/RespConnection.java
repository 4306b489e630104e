package dbf0.kv.server;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * The wire half of a test's hand-written RESP client: it sends a command as an array of bulk
 * strings and reads reply lines and bodies, and leaves what a reply means to its caller (a crash
 * test treats anything unexpected as a failure, a server test shows it as text). Written by hand,
 * not through a Redis library, so that the test sees the bytes the server really sent.
 */
final class RespConnection implements AutoCloseable {

    private final Socket socket = new Socket();
    private final OutputStream out;
    private final InputStream in;

    /** Connects, and gives each read 15 s so that a hung server fails the test, not stalls it. */
    RespConnection(InetSocketAddress address) throws IOException {
        socket.connect(address, 5_000);
        socket.setSoTimeout(15_000);
        out = socket.getOutputStream();
        in = new BufferedInputStream(socket.getInputStream());
    }

    /**
     * Sends one command and returns the first line of its reply, without its CRLF; a bulk string's
     * body, if any, is still to be read with {@link #body}.
     */
    String call(byte[]... args) throws IOException {
        // One write for the whole command, so that it reaches the server in one piece.
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        request.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (byte[] a : args) {
            request.writeBytes(("$" + a.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            request.writeBytes(a);
            request.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        out.write(request.toByteArray());
        out.flush();
        return line();
    }

    /** Reads one line, without its CRLF; the server closing first is an EOFException. */
    String line() throws IOException {
        StringBuilder line = new StringBuilder();
        int b;
        while ((b = in.read()) != '\n') {
            if (b < 0) {
                throw new EOFException("server closed");
            }
            if (b != '\r') {
                line.append((char) b);
            }
        }
        return line.toString();
    }

    /**
     * Reads up to {@code n} bytes of a bulk string's body (fewer only if the server closed), not
     * its closing CRLF.
     */
    byte[] body(int n) throws IOException {
        return in.readNBytes(n);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
