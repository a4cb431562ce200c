package io.rnic.datapath.driver;

import io.rnic.shm.SharedMemory;
import io.rnic.verbs.MemoryRegion;

/** A client's memory region: the driver's mapping of the client's file, registered at the client's address. */
record ClientMr(int handle, MemoryRegion region, SharedMemory memory)
{
}
