package io.rnic.datapath.afpacket;

/** {@link VethPair} for tests of other packages. */
public final class VethPairAccess implements AutoCloseable
{
    private final VethPair pair;

    private VethPairAccess(final VethPair pair)
    {
        this.pair = pair;
    }

    public static boolean available()
    {
        return VethPair.available();
    }

    public static VethPairAccess create(final int mtu) throws Exception
    {
        return new VethPairAccess(new VethPair(mtu));
    }

    public String a()
    {
        return pair.a;
    }

    public String b()
    {
        return pair.b;
    }

    @Override
    public void close()
    {
        pair.close();
    }
}
