package io.rnic.verbs;

/**
 * A scatter/gather list of a work request ({@code struct ibv_sge[]}): up to {@link #MAX_SGE} entries of local
 * address, length and L_Key, or fewer: a QP's work queue slots hold as many as the QP was created for
 * ({@code max_send_sge}, {@code max_recv_sge}), since one slot per work request is allocated up front. Mutable and
 * reused.
 */
public final class ScatterGatherList
{
    public static final int MAX_SGE = 16;

    final long[] addresses;
    final int[] lengths;
    final int[] lKeys;
    int count;
    /**
     * The sum of the first {@link #count} lengths, kept as entries are written: the requester, the completer and the
     * responder ask for it several times per work request (it was 1.8% of the single-thread 64 B benchmark's time,
     * summed each time).
     */
    long total;

    /** A list of up to {@link #MAX_SGE} entries. */
    public ScatterGatherList()
    {
        this(MAX_SGE);
    }

    /** A list of up to {@code capacity} entries (1..{@link #MAX_SGE}). */
    public ScatterGatherList(final int capacity)
    {
        if (capacity < 1 || capacity > MAX_SGE)
        {
            throw new VerbsException("scatter/gather entries " + capacity + " out of range 1.." + MAX_SGE);
        }
        addresses = new long[capacity];
        lengths = new int[capacity];
        lKeys = new int[capacity];
    }

    /** The most entries this list holds. */
    public int capacity()
    {
        return addresses.length;
    }

    public ScatterGatherList clear()
    {
        count = 0;
        total = 0;
        return this;
    }

    /** Appends an entry; throws {@link VerbsException} past its capacity (control of the caller's own list). */
    public ScatterGatherList add(final long address, final int length, final int lKey)
    {
        if (count == addresses.length)
        {
            throw new VerbsException("more than " + addresses.length + " scatter/gather entries");
        }
        if (length < 0)
        {
            throw new VerbsException("negative scatter/gather length " + length);
        }
        addresses[count] = address;
        lengths[count] = length;
        lKeys[count] = lKey;
        count++;
        total += length;
        return this;
    }

    /** Adds the whole of a memory region. */
    public ScatterGatherList add(final MemoryRegion region)
    {
        return add(region.address(), (int)Math.min(Integer.MAX_VALUE, region.length()), region.lKey());
    }

    public int count()
    {
        return count;
    }

    public long address(final int i)
    {
        return addresses[i];
    }

    public int length(final int i)
    {
        return lengths[i];
    }

    public int lKey(final int i)
    {
        return lKeys[i];
    }

    /** Sum of the entry lengths, in bytes (a long: 16 entries of 2 GiB do not fit an int). */
    public long totalLength()
    {
        return total;
    }

    /** Copies {@code other}, which has no more entries than this list's capacity (the post calls check). */
    public void copyFrom(final ScatterGatherList other)
    {
        count = other.count;
        total = other.total;
        System.arraycopy(other.addresses, 0, addresses, 0, count);
        System.arraycopy(other.lengths, 0, lengths, 0, count);
        System.arraycopy(other.lKeys, 0, lKeys, 0, count);
    }
}
