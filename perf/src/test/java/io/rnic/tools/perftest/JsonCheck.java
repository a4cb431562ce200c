package io.rnic.tools.perftest;

/**
 * Checks that a text is one JSON value (RFC 8259: objects, arrays, strings, numbers, literals), so that a test can
 * tell our {@code --out_json} file reads as JSON without a JSON library on the class path.
 */
final class JsonCheck
{
    private final String text;
    private int at;

    private JsonCheck(final String text)
    {
        this.text = text;
    }

    /** Throws AssertionError naming the offset of the first thing that is not JSON. */
    static void validate(final String text)
    {
        final JsonCheck check = new JsonCheck(text);
        check.value();
        check.space();
        if (check.at != text.length())
        {
            check.fail("text after the value");
        }
    }

    private void value()
    {
        space();
        if (at >= text.length())
        {
            fail("end of text");
        }
        final char c = text.charAt(at);
        switch (c)
        {
            case '{' -> members('}', true);
            case '[' -> members(']', false);
            case '"' -> string();
            case 't' -> literal("true");
            case 'f' -> literal("false");
            case 'n' -> literal("null");
            default -> number();
        }
    }

    private void members(final char close, final boolean object)
    {
        at++;
        space();
        if (peek() == close)
        {
            at++;
            return;
        }
        while (true)
        {
            if (object)
            {
                space();
                if (peek() != '"')
                {
                    fail("a key in quotes");
                }
                string();
                space();
                expect(':');
            }
            value();
            space();
            if (peek() == ',')
            {
                at++;
                continue;
            }
            expect(close);
            return;
        }
    }

    private void string()
    {
        at++;
        while (at < text.length() && text.charAt(at) != '"')
        {
            if (text.charAt(at) < 0x20)
            {
                fail("a control character in a string");
            }
            at += text.charAt(at) == '\\' ? 2 : 1;
        }
        expect('"');
    }

    private void number()
    {
        final int start = at;
        while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0)
        {
            at++;
        }
        if (!text.substring(start, at).matches("-?(0|[1-9]\\d*)(\\.\\d+)?([eE][+-]?\\d+)?"))
        {
            at = start;
            fail("a number");
        }
    }

    private void literal(final String word)
    {
        if (!text.startsWith(word, at))
        {
            fail(word);
        }
        at += word.length();
    }

    private void space()
    {
        while (at < text.length() && " \t\r\n".indexOf(text.charAt(at)) >= 0)
        {
            at++;
        }
    }

    private char peek()
    {
        return at < text.length() ? text.charAt(at) : 0;
    }

    private void expect(final char c)
    {
        if (peek() != c)
        {
            fail("'" + c + "'");
        }
        at++;
    }

    private void fail(final String expected)
    {
        throw new AssertionError("not JSON at offset " + at + ": expected " + expected + " in\n" + text);
    }
}
