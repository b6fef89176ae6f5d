/**
 * The file tools: read_file, write_file, edit_file, list_dir, search_files and stat, confined to the allowed roots.
 *
 * <h2>Confinement</h2>
 * Every tool opens what it touches through {@link dev.efferent.tools.fs.ConfinedPath}: the path is checked and
 * made real by {@code AllowedRoots.resolve}, then walked name by name from the root's directory handle without
 * following links ({@code SecureDirectoryStream}, i.e. openat with O_NOFOLLOW), writes are renamed into place
 * inside that handle, and a regular file with more than one hard link is refused unless
 * {@code tools.fs.allow-hardlinks} is true ({@link dev.efferent.tools.fs.HardLinks}).
 *
 * <h2>What is left</h2>
 * <ul>
 *   <li>Missing parent directories are created by path (Java has no mkdirat): under a race an empty directory can
 *       appear outside a root, never file content.</li>
 *   <li>A directory moved out of a root (not swapped for a link) after the walk opened it still receives the
 *       write; moving it there needs write access to the outside place.</li>
 *   <li>The link count is read by path and tied to the opened file by device and inode, checked before and after
 *       the open; a swap to another file and back between those checks (A-B-A) is not seen.</li>
 *   <li>Pipes, sockets and devices are refused before any open, from the attributes the directory handle reads
 *       ({@link dev.efferent.tools.fs.FileKind}); search_files skips and counts them. A name swapped for a FIFO
 *       between that check and the open still blocks that one call's thread in native {@code open()}, where no
 *       interrupt or cancellation reaches, until a writer opens the FIFO. Java offers no way to close this: there
 *       is no {@code O_NONBLOCK} open option, neither in {@code StandardOpenOption} nor in what
 *       {@code SecureDirectoryStream.newByteChannel} accepts, and no fstat on a channel. The call itself still
 *       ends at its deadline (the host completes it); only the thread stays parked. Making the swap needs write
 *       access inside the root.</li>
 *   <li>search_files' regular expression is bounded by the characters it reads, not by time
 *       ({@link dev.efferent.tools.fs.BoundedMatcher}): matcher work between two reads is neither counted nor
 *       interruptible. {@code java.util.regex} reads a character at nearly every step and ends a loop on an empty
 *       iteration, so that work stays small.</li>
 *   <li>By path, for display only: list_dir's link targets (readlink) and stat's readable/writable (access).</li>
 *   <li>Windows has no {@code SecureDirectoryStream} and shows Java no link count: there the tools check by path
 *       and open the last name with NOFOLLOW_LINKS, which narrows the race but cannot close it.</li>
 * </ul>
 */
package dev.efferent.tools.fs;
