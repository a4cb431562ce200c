package io.rnic.cli;

import java.util.List;
import java.util.Map;

/** Writes maps, lists, strings, numbers, booleans and null as one-line JSON (no dependency for so little). */
final class JsonWriter
{
    private JsonWriter()
    {
    }

    static String write(final Object value)
    {
        final StringBuilder sb = new StringBuilder(256);
        append(sb, value);
        return sb.toString();
    }

    private static void append(final StringBuilder sb, final Object value)
    {
        if (value == null)
        {
            sb.append("null");
        }
        else if (value instanceof String s)
        {
            appendString(sb, s);
        }
        else if (value instanceof Number || value instanceof Boolean)
        {
            sb.append(value);
        }
        else if (value instanceof Map<?, ?> map)
        {
            sb.append('{');
            boolean first = true;
            for (final Map.Entry<?, ?> e : map.entrySet())
            {
                if (!first)
                {
                    sb.append(", ");
                }
                first = false;
                appendString(sb, String.valueOf(e.getKey()));
                sb.append(": ");
                append(sb, e.getValue());
            }
            sb.append('}');
        }
        else if (value instanceof List<?> list)
        {
            sb.append('[');
            for (int i = 0; i < list.size(); i++)
            {
                if (i > 0)
                {
                    sb.append(", ");
                }
                append(sb, list.get(i));
            }
            sb.append(']');
        }
        else
        {
            appendString(sb, value.toString());
        }
    }

    private static void appendString(final StringBuilder sb, final String s)
    {
        sb.append('"');
        for (int i = 0; i < s.length(); i++)
        {
            final char c = s.charAt(i);
            switch (c)
            {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\t' -> sb.append("\\t");
                case '\r' -> sb.append("\\r");
                default ->
                {
                    if (c < 0x20)
                    {
                        sb.append(String.format("\\u%04x", (int)c));
                    }
                    else
                    {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
