package io.rnic.tools;

/**
 * Where a tool's buffers are, per QP: a send area and a receive area of {@link #slots} slots each. The slot count
 * depends only on the message size, so both ends compute the same layout from the same {@code -s}; the address a
 * side announces is its QP region's start (the send area), the receive area follows it.
 * Without {@code --verify} every operation uses slot 0, as perftest does (and as a peer running the real tool needs).
 */
public final class QpLayout
{
    /** UD receive buffers start with the 40-byte GRH area. */
    public static final int GRH_BYTES = 40;
    private static final long VERIFY_BYTES_PER_AREA = 4L << 20;
    private static final int MAX_SLOTS = 64;

    public final int messageBytes;
    public final int slotBytes;
    public final int slots;
    public final long areaBytes;
    public final long regionBytes;

    public QpLayout(final int messageBytes, final boolean ud)
    {
        this.messageBytes = messageBytes;
        this.slotBytes = (int)align(messageBytes + (ud ? GRH_BYTES : 0), 64L);
        this.slots = (int)Math.max(1, Math.min(MAX_SLOTS, VERIFY_BYTES_PER_AREA / slotBytes));
        this.areaBytes = (long)slotBytes * slots;
        this.regionBytes = align(areaBytes * 2, 4096L);
    }

    private QpLayout(final int messageBytes, final int slotBytes, final QpLayout within)
    {
        this.messageBytes = messageBytes;
        this.slotBytes = slotBytes;
        this.slots = 1;
        this.areaBytes = within.areaBytes;
        this.regionBytes = within.regionBytes;
    }

    /**
     * A layout for a smaller message in this one's region (-a's sizes, one slot, no UD): its receive area stays where
     * this one's is, so it stays the address announced to the peer, where the peer's WRITEs land.
     */
    public QpLayout sizedWithin(final int messageBytes)
    {
        if (messageBytes > slotBytes)
        {
            throw new IllegalArgumentException(messageBytes + " bytes do not fit a slot of " + slotBytes);
        }
        return new QpLayout(messageBytes, (int)align(messageBytes, 64L), this);
    }

    /**
     * The largest message whose layout fits a region of {@code regionBytes}: a large message has one slot each way,
     * the send area and the receive area, each aligned to 64 bytes, the two to a page.
     */
    public static long largestMessage(final long regionBytes)
    {
        return ((regionBytes & -4096L) / 2) & -64L;
    }

    public long sendSlot(final long regionBase, final long slot)
    {
        return regionBase + slot * slotBytes;
    }

    public long receiveSlot(final long regionBase, final long slot)
    {
        return regionBase + areaBytes + slot * slotBytes;
    }

    static long align(final long value, final long alignment)
    {
        return (value + alignment - 1) & -alignment;
    }
}
