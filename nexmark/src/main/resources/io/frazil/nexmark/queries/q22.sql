-- q22: get URL directories. Bids with the first three directories of their URL.
-- result: append
CREATE TABLE ${sink} (
  auction BIGINT, bidder BIGINT, price BIGINT, channel STRING,
  dir1 STRING, dir2 STRING, dir3 STRING)
  WITH (${with});
INSERT INTO ${sink}
SELECT auction, bidder, price, channel,
  SPLIT_INDEX(url, '/', 3) AS dir1, SPLIT_INDEX(url, '/', 4) AS dir2, SPLIT_INDEX(url, '/', 5) AS dir3
FROM bid;
