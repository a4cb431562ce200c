package io.rnic.icrc;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;
import java.util.zip.CRC32;

/** TEMPORARY stand-in until the ICRC work lands. */
public final class Icrc
{
    public static final int LENGTH = 4;

    private Icrc()
    {
    }

    public static int readWire(final DirectBuffer buffer, final int icrcOffset)
    {
        return buffer.getInt(icrcOffset, ByteOrder.LITTLE_ENDIAN);
    }

    public static void writeWire(final MutableDirectBuffer buffer, final int icrcOffset, final int icrc)
    {
        buffer.putInt(icrcOffset, icrc, ByteOrder.LITTLE_ENDIAN);
    }

    public static IcrcCalculator defaultCalculator()
    {
        final byte[] scratch = new byte[16384];
        final CRC32 crc = new CRC32();
        return (buffer, ipOffset, ipv6, icrcOffset) ->
        {
            final int n = icrcOffset - ipOffset;
            java.util.Arrays.fill(scratch, 0, 8, (byte)0xFF);
            buffer.getBytes(ipOffset, scratch, 8, n);
            final int ip = 8;
            final int udp;
            if (ipv6)
            {
                scratch[ip] |= 0x0F;
                scratch[ip + 1] = scratch[ip + 2] = scratch[ip + 3] = (byte)0xFF;
                scratch[ip + 7] = (byte)0xFF;
                udp = ip + 40;
            }
            else
            {
                scratch[ip + 1] = scratch[ip + 8] = scratch[ip + 10] = scratch[ip + 11] = (byte)0xFF;
                udp = ip + 20;
            }
            scratch[udp + 6] = scratch[udp + 7] = (byte)0xFF;
            scratch[udp + 8 + 4] = (byte)0xFF;
            crc.reset();
            crc.update(scratch, 0, 8 + n);
            return (int)crc.getValue();
        };
    }
}
