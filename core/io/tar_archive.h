#pragma once
// Tar archives (plain or gzipped: POSIX ustar, old GNU with ././@LongLink names, and pax with
// path and size records), read in one streaming pass. Used by the text-corpus reader
// (corpus_files.h) for archives of text files; not part of its public interface. Uses QtCore
// and zlib through ByteSource; reentrant.

#include <functional>
#include <string>
#include <string_view>

namespace svi {

// For every regular file of the archive at `path`, asks `want(name)` and, if so, hands its bytes
// to `take(name, bytes)` (which may move them away). Names are the paths inside the archive
// without a leading "./". A file's bytes are read into memory block by block as they arrive,
// so a header that claims more than the archive holds fails as truncated instead of allocating
// for the claim; a long name or pax record over 1 MiB is a corrupt header. Throws DataError
// naming the archive and the byte offset: not a tar archive, a header whose checksum does not
// match, a size that is not a number, an archive that ends inside a header or a file.
void readTarArchive(const std::string& path, const std::function<bool(const std::string&)>& want,
                    const std::function<void(const std::string&, std::string&)>& take);

// Whether `block` starts with a tar header: 512 bytes whose checksum matches (every tar format
// has one; the ustar magic at byte 257 is absent from old archives), as readTarArchive needs.
bool isTarHeader(std::string_view block);

} // namespace svi
