/**
 * Memory that one process allocates and another maps, through the FFM API: {@link io.rnic.shm.SharedMemory} creates
 * a sealed memfd, or maps one received from another process and checks it first, so that the process which maps it
 * (the driver) can never take SIGBUS because the owner (a client) shrank it. The descriptors travel over an AF_UNIX
 * socket as {@code SCM_RIGHTS} ({@link io.rnic.shm.FdSocket} sends, {@link io.rnic.shm.FdSocketServer} receives,
 * with the sender's credentials). {@code LinuxMemfd} and {@code LinuxUnixSockets} declare the libc calls. It depends
 * on no other rnic package.
 */
package io.rnic.shm;
