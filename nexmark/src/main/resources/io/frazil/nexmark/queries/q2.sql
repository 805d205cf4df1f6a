-- q2: selection. The bids on a chosen set of auctions (every 123rd id).
-- result: append
CREATE TABLE ${sink} (auction BIGINT, price BIGINT) WITH (${with});
INSERT INTO ${sink} SELECT auction, price FROM bid WHERE MOD(auction, 123) = 0;
