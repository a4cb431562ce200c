package io.rnic.cnc.command;

import org.agrona.MutableDirectBuffer;

/**
 * ERROR: the command was refused ({@code struct rnic_error_answer}). The one message of variable length: the header,
 * a code, the verbs' errno, then the line's length and its UTF-8 bytes, at most {@link #MAX_MESSAGE_LENGTH}; the
 * message is {@link #length()} bytes, exactly.
 */
public final class ErrorAnswerFlyweight extends CorrelatedMessageFlyweight
{
    /** int32: {@code RNIC_CTL_ERROR_*}. */
    public static final int CODE_OFFSET = 16;
    /** int32: the errno of the verbs' refusal behind it (ENOMEM, EBUSY, EADDRINUSE, EHOSTUNREACH, ...), 0: none. */
    public static final int ERRNO_VALUE_OFFSET = 20;
    /** int32: bytes of the message, 0..{@link #MAX_MESSAGE_LENGTH}. */
    public static final int MESSAGE_LENGTH_OFFSET = 24;
    /** bytes: one line, UTF-8, no NUL. */
    public static final int MESSAGE_OFFSET = 28;
    /** The most bytes a message takes: a longer line is cut (at a character). */
    public static final int MAX_MESSAGE_LENGTH = 3000;
    /** The longest message of this type. */
    public static final int MAX_LENGTH = MESSAGE_OFFSET + MAX_MESSAGE_LENGTH;
    private static final int MAX_MESSAGE_CHARS = MAX_MESSAGE_LENGTH / 3; // UTF-8 takes at most 3 bytes a char

    public ErrorAnswerFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public int code()
    {
        return buffer.getInt(offset + CODE_OFFSET);
    }

    public ErrorAnswerFlyweight code(final int code)
    {
        buffer.putInt(offset + CODE_OFFSET, code);
        return this;
    }

    public int errnoValue()
    {
        return buffer.getInt(offset + ERRNO_VALUE_OFFSET);
    }

    public ErrorAnswerFlyweight errnoValue(final int errnoValue)
    {
        buffer.putInt(offset + ERRNO_VALUE_OFFSET, errnoValue);
        return this;
    }

    public int messageLength()
    {
        return buffer.getInt(offset + MESSAGE_LENGTH_OFFSET);
    }

    /** The line; empty when its length is out of range (a message of another version, which {@link #length} shows). */
    public String message()
    {
        final int length = messageLength();
        if (length < 0 || length > MAX_MESSAGE_LENGTH)
        {
            return "";
        }
        return buffer.getStringWithoutLengthUtf8(offset + MESSAGE_OFFSET, length);
    }

    /** Sets the line, cut to {@link #MAX_MESSAGE_LENGTH} bytes. */
    public ErrorAnswerFlyweight message(final String message)
    {
        final String text = message.length() > MAX_MESSAGE_CHARS ? message.substring(0, MAX_MESSAGE_CHARS) : message;
        final int length = buffer.putStringWithoutLengthUtf8(offset + MESSAGE_OFFSET, text);
        buffer.putInt(offset + MESSAGE_LENGTH_OFFSET, length);
        return this;
    }

    /** Bytes of this message: the fixed part and the line. */
    public int length()
    {
        return MESSAGE_OFFSET + messageLength();
    }

    /** Whether a message of {@code length} bytes is a whole error answer: the line's length matches. */
    public boolean isWhole(final int length)
    {
        return length >= MESSAGE_OFFSET && length - MESSAGE_OFFSET == messageLength() &&
            messageLength() <= MAX_MESSAGE_LENGTH;
    }
}
