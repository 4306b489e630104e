package dbf0.kv.server.cluster;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** A test's RESP connection: sends a command, returns its reply's raw bytes as text. */
public final class RawResp implements AutoCloseable {

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    public RawResp(int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(10_000);
        in = new BufferedInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    /** The whole reply, byte for byte (ISO-8859-1, so bytes and chars are one to one). */
    public String call(String... args) throws IOException {
        StringBuilder s = new StringBuilder("*").append(args.length).append("\r\n");
        for (String a : args) {
            s.append('$').append(a.getBytes(StandardCharsets.UTF_8).length).append("\r\n");
            s.append(a).append("\r\n");
        }
        out.write(s.toString().getBytes(StandardCharsets.UTF_8));
        out.flush();
        ByteArrayOutputStream reply = new ByteArrayOutputStream();
        readValue(reply);
        return reply.toString(StandardCharsets.ISO_8859_1);
    }

    /** A bulk or verbatim reply's text. */
    public String text(String... args) throws IOException {
        String raw = call(args);
        int start = raw.indexOf("\r\n") + 2;
        String body = raw.substring(start, raw.length() - 2);
        return raw.charAt(0) == '=' ? body.substring(4) : body;
    }

    private void readValue(ByteArrayOutputStream reply) throws IOException {
        String line = readLine(reply);
        char type = line.charAt(0);
        long n =
                type == '+' || type == '-' || type == ':' || type == '_'
                        ? 0
                        : Long.parseLong(line.substring(1));
        switch (type) {
            case '$', '=' -> {
                if (n >= 0) {
                    reply.write(in.readNBytes((int) n + 2));
                }
            }
            case '*' -> {
                for (long i = 0; i < n; i++) {
                    readValue(reply);
                }
            }
            case '%' -> {
                for (long i = 0; i < 2 * n; i++) {
                    readValue(reply);
                }
            }
            default -> {}
        }
    }

    private String readLine(ByteArrayOutputStream reply) throws IOException {
        StringBuilder line = new StringBuilder();
        int b;
        while ((b = in.read()) != '\n') {
            if (b < 0) {
                throw new EOFException();
            }
            reply.write(b);
            if (b != '\r') {
                line.append((char) b);
            }
        }
        reply.write('\n');
        return line.toString();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
