package io.rnic.datapath.driver;

import io.rnic.shm.SharedMemory;
import io.rnic.verbs.EngineSharedReceiveQueue;

/**
 * A client's shared receive queue as the driver holds it: the engine's SRQ, which takes the requests straight from the
 * receive ring in the client's file, and that file. {@code owner} lets the conductor route the SRQ's events.
 */
record ClientSrq(int handle, EngineSharedReceiveQueue srq, SharedMemory memory, ClientSession owner)
{
}
