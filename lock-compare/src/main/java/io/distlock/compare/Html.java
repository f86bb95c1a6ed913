package io.distlock.compare;

/** Escaping for text and attribute values in the HTML report. */
final class Html {
    private Html() {}

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
