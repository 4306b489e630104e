"""CRC32C (Castagnoli, reflected polynomial 0x82F63B78), bit by bit: the checksum of the WAL's
records, of the LSM store's blocks and manifest edits and of the B+tree's pages, for the vector
scripts (wal_vectors.py, lsm_vectors.py, btree_vectors.py), which share no code with the Java
encoders."""


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


assert crc32c(b"123456789") == 0xE3069283
