"""lab/harden/corrupt.py SRC DST SEED CACHE: copy SRC to DST with one kind
of damage picked by SEED (see corrupt.sh)."""
import random, shutil, sqlite3, sys

src, dst, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
rnd = random.Random(seed)
shutil.copyfile(src, dst)
data = bytearray(open(dst, 'rb').read())
page = int.from_bytes(data[16:18], 'big') or 65536
npages = len(data) // page
kind = seed % 6
if kind == 0:      # random bytes anywhere
    for _ in range(rnd.randint(1, 16)):
        data[rnd.randrange(len(data))] ^= 1 << rnd.randrange(8)
elif kind == 1:    # the first pages: header, schema, b-tree roots
    for _ in range(rnd.randint(1, 4)):
        data[rnd.randrange(100, min(len(data), 8 * page))] ^= 1 << rnd.randrange(8)
elif kind == 2:    # one page, many bytes
    p = rnd.randrange(1, npages)
    for _ in range(rnd.randint(1, 32)):
        data[p * page + rnd.randrange(page)] = rnd.randrange(256)
elif kind == 3:    # a page zeroed
    p = rnd.randrange(1, npages)
    data[p * page:(p + 1) * page] = bytes(page)
elif kind == 4:    # two pages swapped
    a, b = rnd.randrange(1, npages), rnd.randrange(1, npages)
    pa, pb = bytes(data[a * page:(a + 1) * page]), bytes(data[b * page:(b + 1) * page])
    data[a * page:(a + 1) * page], data[b * page:(b + 1) * page] = pb, pa
open(dst, 'wb').write(data)
if kind == 5:      # an index left stale under one changed retest row
    c = sqlite3.connect(dst, isolation_level=None)
    c.execute("pragma writable_schema = on")
    c.execute("create table keep as select * from sqlite_schema where name = 'result_by_slice'")
    c.execute("delete from sqlite_schema where name = 'result_by_slice'")
    c.close()
    c = sqlite3.connect(dst, isolation_level=None)
    col = rnd.choice(['m = m + 1', 'ratio = ratio * 2', 'm = m * 3'])
    for _ in range(50):    # a row whose change breaks no unique key
        try:
            c.execute("update result set %s where id = (select id from result where phase = "
                      "'retest' and status = 'ok' order by id limit 1 offset ?)" % col,
                      (rnd.randrange(20),))
            break
        except sqlite3.IntegrityError:
            pass
    c.execute("pragma writable_schema = on")
    c.execute("insert into sqlite_schema select * from keep")
    c.execute("drop table keep")
    c.close()
