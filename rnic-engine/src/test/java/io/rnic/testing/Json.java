package io.rnic.testing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small strict JSON reader for the test vectors and for checking {@code rnic inspect --json} output.
 * Objects become {@link LinkedHashMap}, arrays {@link ArrayList}, integers {@link Long}, other numbers
 * {@link Double}, plus String, Boolean and null.
 */
public final class Json
{
    private final String text;
    private int position;

    private Json(final String text)
    {
        this.text = text;
    }

    public static Object parse(final String text)
    {
        final Json json = new Json(text);
        json.skipWhitespace();
        final Object value = json.value();
        json.skipWhitespace();
        if (json.position != text.length())
        {
            throw json.error("trailing characters");
        }
        return value;
    }

    @SuppressWarnings("unchecked")
    public static Map<String, Object> parseObject(final String text)
    {
        return (Map<String, Object>)parse(text);
    }

    /**
     * A value in a form that compares equal however it was produced: numbers as Long, strings in lower case, maps
     * sorted by key, recursively. For comparing decoded fields with the vectors' expected ones.
     */
    public static Object normalise(final Object value)
    {
        if (value instanceof Number n)
        {
            return n.longValue();
        }
        if (value instanceof String s)
        {
            return s.toLowerCase();
        }
        if (value instanceof Map<?, ?> map)
        {
            final java.util.TreeMap<String, Object> result = new java.util.TreeMap<>();
            map.forEach((k, v) -> result.put((String)k, normalise(v)));
            return result;
        }
        if (value instanceof List<?> list)
        {
            return list.stream().map(Json::normalise).toList();
        }
        return value;
    }

    private Object value()
    {
        if (position >= text.length())
        {
            throw error("unexpected end");
        }
        final char c = text.charAt(position);
        switch (c)
        {
            case '{':
                return object();
            case '[':
                return array();
            case '"':
                return string();
            case 't':
                expect("true");
                return Boolean.TRUE;
            case 'f':
                expect("false");
                return Boolean.FALSE;
            case 'n':
                expect("null");
                return null;
            default:
                return number();
        }
    }

    private Map<String, Object> object()
    {
        final Map<String, Object> map = new LinkedHashMap<>();
        position++;
        skipWhitespace();
        if (peek() == '}')
        {
            position++;
            return map;
        }
        while (true)
        {
            skipWhitespace();
            final String key = string();
            skipWhitespace();
            if (peek() != ':')
            {
                throw error("expected ':'");
            }
            position++;
            skipWhitespace();
            map.put(key, value());
            skipWhitespace();
            final char c = text.charAt(position++);
            if (c == '}')
            {
                return map;
            }
            if (c != ',')
            {
                throw error("expected ',' or '}'");
            }
        }
    }

    private List<Object> array()
    {
        final List<Object> list = new ArrayList<>();
        position++;
        skipWhitespace();
        if (peek() == ']')
        {
            position++;
            return list;
        }
        while (true)
        {
            skipWhitespace();
            list.add(value());
            skipWhitespace();
            final char c = text.charAt(position++);
            if (c == ']')
            {
                return list;
            }
            if (c != ',')
            {
                throw error("expected ',' or ']'");
            }
        }
    }

    private String string()
    {
        if (peek() != '"')
        {
            throw error("expected string");
        }
        position++;
        final StringBuilder sb = new StringBuilder();
        while (true)
        {
            final char c = text.charAt(position++);
            if (c == '"')
            {
                return sb.toString();
            }
            if (c == '\\')
            {
                final char e = text.charAt(position++);
                switch (e)
                {
                    case 'n' -> sb.append('\n');
                    case 't' -> sb.append('\t');
                    case 'r' -> sb.append('\r');
                    case 'b' -> sb.append('\b');
                    case 'f' -> sb.append('\f');
                    case 'u' ->
                    {
                        sb.append((char)Integer.parseInt(text.substring(position, position + 4), 16));
                        position += 4;
                    }
                    default -> sb.append(e);
                }
            }
            else
            {
                sb.append(c);
            }
        }
    }

    private Object number()
    {
        final int start = position;
        while (position < text.length() && "+-0123456789.eE".indexOf(text.charAt(position)) >= 0)
        {
            position++;
        }
        final String token = text.substring(start, position);
        if (token.isEmpty())
        {
            throw error("unexpected character");
        }
        if (token.indexOf('.') < 0 && token.indexOf('e') < 0 && token.indexOf('E') < 0)
        {
            return Long.parseLong(token);
        }
        return Double.parseDouble(token);
    }

    private void expect(final String word)
    {
        if (!text.startsWith(word, position))
        {
            throw error("expected " + word);
        }
        position += word.length();
    }

    private char peek()
    {
        return position < text.length() ? text.charAt(position) : '\0';
    }

    private void skipWhitespace()
    {
        while (position < text.length() && Character.isWhitespace(text.charAt(position)))
        {
            position++;
        }
    }

    private IllegalArgumentException error(final String message)
    {
        return new IllegalArgumentException(message + " at " + position);
    }
}
