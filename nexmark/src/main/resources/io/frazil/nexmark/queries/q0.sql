-- q0: pass-through. Every bid, unchanged: what reading, converting and writing the stream costs.
-- result: append
CREATE TABLE ${sink} (auction BIGINT, bidder BIGINT, price BIGINT, `dateTime` TIMESTAMP(3), extra STRING)
  WITH (${with});
INSERT INTO ${sink} SELECT auction, bidder, price, `dateTime`, extra FROM bid;
