package dbf0.kv.check;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;

/**
 * Renders a violation for people: the failing partition's operations as a text timeline and as a
 * self-contained HTML page. Operations the search could not fit into its longest partial
 * linearization are marked: the violation lies among them.
 */
public final class Explanation {

    private Explanation() {}

    /**
     * One line per operation, by invocation time: a mark ({@code *} = not in the longest partial
     * linearization), the client, what it did, and its interval as a bar scaled to {@code width}
     * columns. A pending operation's bar runs to the end with {@code >}.
     */
    public static <I, O> String text(Model<?, I, O> model, CheckResult<I, O> result, int width) {
        List<Operation<I, O>> ops = sorted(result.subHistory());
        if (ops.isEmpty()) {
            return "";
        }
        Set<Operation<I, O>> explained = identitySet(result.longestPartial());
        long lo = ops.stream().mapToLong(Operation::invokeTime).min().orElse(0);
        long hi = end(ops);
        List<String> labels = new ArrayList<>();
        int labelWidth = 0;
        for (Operation<I, O> op : ops) {
            String l = "c" + op.client() + " " + model.describe(op.input(), op.output());
            if (l.length() > 48) {
                l = l.substring(0, 45) + "...";
            }
            labels.add(l);
            labelWidth = Math.max(labelWidth, l.length());
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < ops.size(); i++) {
            Operation<I, O> op = ops.get(i);
            sb.append(explained.contains(op) ? "  " : "* ");
            // Padded by hand: in a JVM just started, a Formatter per line was most of what the
            // timelines of a hundred small violations cost.
            String label = labels.get(i);
            sb.append(label).append(" ".repeat(labelWidth - label.length() + 1));
            int a = column(op.invokeTime(), lo, hi, width);
            int b =
                    op.isPending()
                            ? width - 1
                            : Math.max(a, column(op.returnTime(), lo, hi, width));
            sb.append(" ".repeat(a)).append('|');
            if (b > a) {
                sb.append("-".repeat(b - a - 1)).append(op.isPending() ? '>' : '|');
            }
            sb.append('\n');
        }
        sb.append("(* = not in the longest partial linearization found; ")
                .append(result.longestPartial().size())
                .append(" of ")
                .append(ops.size())
                .append(" operations were linearized before the search got stuck)\n");
        return sb.toString();
    }

    /**
     * An HTML page with no external resources: one row per client, each operation a bar from its
     * invocation to its return (pending ones fade out to the end), operations outside the longest
     * partial linearization in red, the rest numbered in the order that linearization put them.
     */
    public static <I, O> String html(Model<?, I, O> model, CheckResult<I, O> result, String title) {
        List<Operation<I, O>> ops = sorted(result.subHistory());
        Set<Operation<I, O>> explained = identitySet(result.longestPartial());
        long lo = ops.stream().mapToLong(Operation::invokeTime).min().orElse(0);
        long hi = Math.max(lo + 1, end(ops));
        TreeMap<Integer, List<Operation<I, O>>> rows = new TreeMap<>();
        for (Operation<I, O> op : ops) {
            rows.computeIfAbsent(op.client(), c -> new ArrayList<>()).add(op);
        }
        int left = 70, plot = 1100, rowH = 34, top = 30;
        int h = top + rows.size() * rowH + 30;
        StringBuilder svg = new StringBuilder();
        svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"")
                .append(left + plot + 20)
                .append("\" height=\"")
                .append(h)
                .append("\">\n");
        svg.append("<line x1=\"")
                .append(left)
                .append("\" y1=\"")
                .append(h - 22)
                .append("\" x2=\"")
                .append(left + plot)
                .append("\" y2=\"")
                .append(h - 22)
                .append("\" class=\"axis\"/>\n");
        svg.append("<text x=\"")
                .append(left)
                .append("\" y=\"")
                .append(h - 6)
                .append("\">")
                .append(lo)
                .append("</text>\n");
        svg.append("<text x=\"")
                .append(left + plot)
                .append("\" y=\"")
                .append(h - 6)
                .append("\" text-anchor=\"end\">")
                .append(hi)
                .append("</text>\n");
        int row = 0;
        for (var e : rows.entrySet()) {
            int y = top + row * rowH;
            svg.append("<text x=\"4\" y=\"")
                    .append(y + 16)
                    .append("\">client ")
                    .append(e.getKey())
                    .append("</text>\n");
            for (Operation<I, O> op : e.getValue()) {
                double x1 = left + plot * (double) (op.invokeTime() - lo) / (hi - lo);
                double x2 =
                        op.isPending()
                                ? left + plot
                                : left + plot * (double) (op.returnTime() - lo) / (hi - lo);
                double w = Math.max(3, x2 - x1);
                int order = indexOf(result.longestPartial(), op);
                String cls = !explained.contains(op) ? "bad" : "ok";
                if (op.isPending()) {
                    cls += " pending";
                }
                String label = model.describe(op.input(), op.output());
                svg.append("<g class=\"")
                        .append(cls)
                        .append("\"><title>")
                        .append(
                                escape(
                                        "client "
                                                + op.client()
                                                + ": "
                                                + label
                                                + " ["
                                                + op.invokeTime()
                                                + ".."
                                                + (op.isPending() ? "pending" : op.returnTime())
                                                + "]"
                                                + (order >= 0
                                                        ? ", linearized #" + (order + 1)
                                                        : ", not linearized")))
                        .append("</title>");
                svg.append(
                        String.format(
                                "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"22\" rx=\"3\"/>",
                                x1, y, w));
                svg.append(
                        String.format(
                                "<text x=\"%.1f\" y=\"%d\" class=\"label\">%s</text>",
                                x1 + 3,
                                y + 15,
                                escape((order >= 0 ? (order + 1) + ". " : "") + label)));
                svg.append("</g>\n");
            }
            row++;
        }
        svg.append("</svg>\n");
        return "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>"
                + escape(title)
                + "</title>\n"
                + "<style>\n"
                + "body{font-family:sans-serif;margin:1em}\n"
                + "svg text{font-size:11px}\n"
                + ".axis{stroke:#555}\n"
                + ".ok rect{fill:#cde;stroke:#468}\n"
                + ".bad rect{fill:#f88;stroke:#a00;stroke-width:2}\n"
                + ".pending rect{fill-opacity:0.4;stroke-dasharray:4 2}\n"
                + ".label{pointer-events:none}\n"
                + "</style></head><body>\n"
                + "<h1>"
                + escape(title)
                + "</h1>\n"
                + "<p>Verdict: <b>"
                + result.verdict()
                + "</b>"
                + (result.failingKey() == null || result.failingKey().isEmpty()
                        ? ""
                        : " in partition <code>" + escape(result.failingKey()) + "</code>")
                + ", "
                + ops.size()
                + " operations. Bars run from invocation to return; dashed bars are pending"
                + " (outcome unknown). Numbers give the order of the longest partial linearization"
                + " the search found ("
                + result.longestPartial().size()
                + " operations); <span style=\"color:#a00\">red</span> "
                + "operations could not be added to it. Hover a bar for details.</p>\n"
                + svg
                + "</body></html>\n";
    }

    private static <I, O> List<Operation<I, O>> sorted(List<Operation<I, O>> ops) {
        List<Operation<I, O>> s = new ArrayList<>(ops);
        s.sort(Comparator.comparingLong(Operation<I, O>::invokeTime));
        return s;
    }

    private static long end(List<? extends Operation<?, ?>> ops) {
        long hi = Long.MIN_VALUE;
        for (Operation<?, ?> op : ops) {
            hi = Math.max(hi, op.invokeTime());
            if (!op.isPending() || op.returnTime() != Long.MAX_VALUE) {
                hi = Math.max(hi, op.returnTime());
            }
        }
        return hi;
    }

    private static int column(long t, long lo, long hi, int width) {
        if (hi <= lo) {
            return 0;
        }
        return (int) Math.min(width - 1, Math.round((double) (t - lo) * (width - 1) / (hi - lo)));
    }

    // Operations are records, so two identical operations are equal; identity tells them apart.
    private static <T> Set<T> identitySet(List<T> list) {
        Set<T> s = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        s.addAll(list);
        return s;
    }

    private static int indexOf(List<?> list, Object o) {
        for (int i = 0; i < list.size(); i++) {
            if (list.get(i) == o) {
                return i;
            }
        }
        return -1;
    }

    static String escape(String s) {
        return s.replace("&", "&amp;")
                .replace("<", "&lt;")
                .replace(">", "&gt;")
                .replace("\"", "&quot;");
    }
}
