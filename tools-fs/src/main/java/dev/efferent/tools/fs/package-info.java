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
 *   <li>A name swapped for a FIFO between its check and its open can block that one call.</li>
 *   <li>By path, for display only: list_dir's link targets (readlink) and stat's readable/writable (access).</li>
 *   <li>Windows has no {@code SecureDirectoryStream} and shows Java no link count: there the tools check by path
 *       and open the last name with NOFOLLOW_LINKS, which narrows the race but cannot close it.</li>
 * </ul>
 */
package dev.efferent.tools.fs;
