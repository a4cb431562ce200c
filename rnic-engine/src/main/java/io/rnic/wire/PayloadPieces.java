package io.rnic.wire;

/**
 * Where a frame's payload lies when it is not copied into the frame: up to {@link #MAX_PIECES} pieces of native
 * memory (one per scatter/gather entry the packet covers), in wire order. Filled once per packet by the transport
 * ({@link #clear}, {@link #add}), read by {@link PacketBuilder#buildAroundPayloadElsewhere} for the ICRC and by the
 * port that sends them. Preallocated, allocates nothing. Single-threaded.
 */
public final class PayloadPieces
{
    /** As many as a work request has scatter/gather entries ({@code ScatterGatherList.MAX_SGE}). */
    public static final int MAX_PIECES = 16;

    private final long[] addresses = new long[MAX_PIECES];
    private final int[] lengths = new int[MAX_PIECES];
    private int count;
    private int totalLength;

    public void clear()
    {
        count = 0;
        totalLength = 0;
    }

    /** @return false when the list is full (nothing added). */
    public boolean add(final long address, final int length)
    {
        if (count == MAX_PIECES)
        {
            return false;
        }
        addresses[count] = address;
        lengths[count] = length;
        count++;
        totalLength += length;
        return true;
    }

    public int count()
    {
        return count;
    }

    public long address(final int index)
    {
        return addresses[index];
    }

    public int length(final int index)
    {
        return lengths[index];
    }

    /** The payload's length: the pieces' sum. */
    public int totalLength()
    {
        return totalLength;
    }
}
